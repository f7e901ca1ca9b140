package dev.knotless.atproto.verify;

import dev.knotless.atproto.identity.DidDocument;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.IdentityException;
import dev.knotless.atproto.repo.Car;
import dev.knotless.atproto.repo.ProofException;
import dev.knotless.atproto.repo.RecordProof;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.atproto.xrpc.XrpcException;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * Verifies that a record is in a repository at a commit its DID's key signed: resolves the DID,
 * fetches the proof from the PDS (the DID document's {@code #atproto_pds}, or the one given), and
 * checks it ({@link RecordProof}).
 *
 * <p>The PDS is not trusted: it only carries the proof. The DID document is trusted as far as its
 * directory (or did:web host) is: it is what says which key speaks for the DID.
 */
public final class RecordVerifier {

    /** Where a proof comes from; a seam so that tests can alter a proof in flight. */
    @FunctionalInterface
    public interface ProofSource {
        byte[] fetch(HttpUrl pds, AtUri uri) throws IOException;
    }

    private final DidResolver resolver;
    private final ProofSource proofs;

    public RecordVerifier(DidResolver resolver, ProofSource proofs) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.proofs = Objects.requireNonNull(proofs, "proofs");
    }

    /** Proofs fetched with {@code com.atproto.sync.getRecord}, anonymously, within {@link Car#MAX_BYTES}. */
    public static ProofSource xrpc(java.util.function.Function<HttpUrl, XrpcClient> clients) {
        return (pds, uri) -> clients.apply(pds).getRecordProof(uri.did(), uri.collection(), uri.rkey(), Car.MAX_BYTES);
    }

    /**
     * @param pds the PDS to ask, or null for the DID document's
     * @param runner when given, the DID the record's repository must be: a copy of a runner's check
     *     in another account's repository verifies, as that account's statement, not the runner's
     */
    public Verdict verify(AtUri uri, @Nullable HttpUrl pds, @Nullable String runner) {
        DidDocument document;
        try {
            document = resolver.resolve(uri.did());
        } catch (IdentityException e) {
            return new Verdict.Unavailable(e.getMessage());
        }
        HttpUrl where = pds;
        if (where == null) {
            Optional<HttpUrl> named = document.pds().map(u -> HttpUrl.get(u.toString()));
            if (named.isEmpty()) {
                return new Verdict.Unavailable("the DID document of " + uri.did() + " names no #atproto_pds (give --pds)");
            }
            where = named.get();
        }
        byte[] car;
        try {
            car = proofs.fetch(where, uri);
        } catch (XrpcException e) {
            if ("RecordNotFound".equals(e.error()) || "RepoNotFound".equals(e.error())) {
                return new Verdict.Refused("no such record: " + e.getMessage());
            }
            return new Verdict.Unavailable(e.getMessage());
        } catch (IOException e) {
            return new Verdict.Unavailable(Objects.toString(e.getMessage(), e.getClass().getSimpleName()));
        }
        try {
            RecordProof.Verified proof = RecordProof.verify(car, uri.did(), uri.collection(), uri.rkey(), document.signingKey());
            if (runner != null && !runner.equals(proof.did())) {
                // Checked after the proof, so that the line says what the record is: another account's.
                return new Verdict.Refused("the record is in the repository of " + proof.did() + " (signed by its key), not of the runner "
                        + runner + ": a copy of a check is its copier's statement, not the runner's");
            }
            return new Verdict.Verified(uri, where.toString(), document.signingKey(), proof);
        } catch (ProofException e) {
            return new Verdict.Refused(e.getMessage());
        }
    }
}
