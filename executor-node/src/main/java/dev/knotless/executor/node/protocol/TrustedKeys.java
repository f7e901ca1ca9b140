package dev.knotless.executor.node.protocol;

import java.security.PublicKey;
import java.util.Optional;

/** The public keys whose signatures the receiver believes, by key id. */
public interface TrustedKeys {

    Optional<PublicKey> find(String keyId);
}
