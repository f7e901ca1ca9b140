package dev.knotless.node.protocol;

import java.security.PrivateKey;

/**
 * Signs protocol documents: a runner signs {@link Envelope}s with one of the node's trusted keys,
 * a node signs {@link Observation}s with its identity key.
 */
public final class Signer {

    private final String keyId;
    private final PrivateKey key;
    private final ProtocolJson json;

    public Signer(String keyId, PrivateKey key, ProtocolJson json) {
        this.keyId = Names.keyId(keyId);
        this.key = key;
        this.json = json;
    }

    public byte[] sign(Envelope envelope) {
        return SignedFrame.sign(SignedFrame.Kind.ACTION, keyId, key, json.write(envelope));
    }

    public byte[] sign(Observation observation) {
        return SignedFrame.sign(SignedFrame.Kind.OBSERVATION, keyId, key, json.write(observation));
    }

    public String keyId() {
        return keyId;
    }
}
