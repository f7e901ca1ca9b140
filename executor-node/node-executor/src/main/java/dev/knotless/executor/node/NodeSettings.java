package dev.knotless.executor.node;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What the node executor is opened with ({@link NodeExecutors#open}).
 *
 * @param listen        where nodes dial in (TLS 1.3, both sides pinned by key)
 * @param nodesFile     the nodes this runner accepts, one {@code NODE_ID PUBLIC_KEY} a line; an
 *                      enrolled node is added to it
 * @param runnerKey     the runner's Ed25519 private key file: it signs actions and is the TLS identity
 * @param keyId         the id nodes know that key by; empty: derived from the key
 * @param network       the node network trusted runs join; empty: none
 * @param placementWait how long a run waits for a node that can take it
 * @param stateDir      the runner's state directory: enrolment tokens, the drained set, the fleet snapshot
 */
public record NodeSettings(InetSocketAddress listen, Path nodesFile, Path runnerKey, Optional<String> keyId,
        Optional<String> network, Duration placementWait, Path stateDir) {

    public NodeSettings {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(nodesFile, "nodesFile");
        Objects.requireNonNull(runnerKey, "runnerKey");
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(placementWait, "placementWait");
        Objects.requireNonNull(stateDir, "stateDir");
    }
}
