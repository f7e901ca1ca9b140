package dev.knotless.spindle.setup;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import okhttp3.OkHttpClient;

/**
 * How to reach the PDS that hosts an account's records. Accounts live on many PDSes (the owner on
 * one, members anywhere), so each is found from its DID document.
 */
@FunctionalInterface
public interface PdsClients {

    /** A client that reads (no login) from the PDS hosting {@code did}; one line when it cannot be found. */
    XrpcClient forDid(String did) throws IOException;

    /**
     * {@code did}'s PDS did not answer: the account may have moved, so its DID document is read
     * afresh next time. Nothing by default.
     */
    default void unreachable(String did) {}

    /** Every account on one PDS: for tests, and a setup whose accounts share one. */
    static PdsClients fixed(XrpcClient client) {
        return did -> client;
    }

    /**
     * Each DID's PDS from its document ({@code #atproto_pds}), the document kept for {@code keep}
     * (a full scan would otherwise ask the directory once per member each time), and one client per
     * PDS URL (most members share a few PDSes).
     */
    static PdsClients resolving(DidResolver resolver, OkHttpClient http, ObjectMapper json, Duration keep, Clock clock) {
        return new ResolvingPdsClients(resolver, http, json, keep, clock);
    }
}
