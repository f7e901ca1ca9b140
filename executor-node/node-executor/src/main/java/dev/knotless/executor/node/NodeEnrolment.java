package dev.knotless.executor.node;

import dev.knotless.node.channel.Enrolment;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Names;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's enrolment desk: a node that proves a one-time token is added to the nodes file with
 * the key it proved in the handshake, and admitted at once (the {@code admitted} callback pins it in
 * the running hub). Logs one line per decision, naming the token by id only.
 */
public record NodeEnrolment(EnrolmentTokens tokens, Path nodesFile, String runnerKeyId, PublicKey runnerKey) {

    private static final Logger LOG = LoggerFactory.getLogger(NodeEnrolment.class);

    /** Decides one request; on acceptance {@code admitted} has run before the answer goes out. */
    public Enrolment.Answer enrol(Enrolment.Request request, PublicKey nodeKey, String from, BiConsumer<String, PublicKey> admitted) {
        String node = request.nodeId();
        String keyId = Ed25519Keys.keyIdOf(Ed25519Keys.raw(nodeKey));
        try {
            Names.node(node);
            EnrolmentTokens.Redemption r = tokens.redeem(request.tokenId(), request.secretBytes(), () -> {
                try {
                    NodesFile.add(nodesFile, node, nodeKey);
                } catch (IllegalArgumentException e) {
                    throw new Conflict(e.getMessage());
                }
                admitted.accept(node, nodeKey);
            });
            return switch (r) {
                case EnrolmentTokens.Redemption.Redeemed ok -> {
                    LOG.info("node enrolled node={} key={} token={} from={}", node, keyId, request.tokenId(), from);
                    yield new Enrolment.Accepted(runnerKeyId, Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runnerKey)));
                }
                case EnrolmentTokens.Redemption.Refused refused -> refuse(node, request.tokenId(), from, refused.reason());
            };
        } catch (Conflict e) {
            return refuse(node, request.tokenId(), from, e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warn("node enrolment failed node={} token={} from={} reason={}", node, request.tokenId(), from, e.getMessage());
            return new Enrolment.Refused("the runner could not record the enrolment: " + e.getMessage());
        }
    }

    private static Enrolment.Refused refuse(String node, String tokenId, String from, String reason) {
        LOG.warn("node enrolment refused node={} token={} from={} reason={}", node, tokenId, from, reason);
        return new Enrolment.Refused(reason);
    }

    /** The node id or key is taken: the token is not spent. */
    private static final class Conflict extends IOException {
        Conflict(String message) {
            super(message);
        }
    }
}
