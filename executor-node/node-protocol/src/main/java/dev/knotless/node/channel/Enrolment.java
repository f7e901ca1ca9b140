package dev.knotless.node.channel;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.ProtocolJson;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.PublicKey;
import java.util.Base64;

/**
 * Enrolment on the channel's port (docs/design/node-enrolment.md): a node whose key the runner
 * does not know yet dials the same {@code --node-listen} port with the ALPN protocol {@link #ALPN}.
 * Only under that protocol does the runner complete a handshake with an unpinned client key, and
 * such a connection carries exactly one {@link Request} and one {@link Answer}, never a
 * {@link Connection}: no action, stream or report is possible on it.
 *
 * <p>Each message is a 4-byte big-endian length and that many bytes of JSON, at most {@link
 * #MAX_MESSAGE_BYTES}: both sides read the other's message as hostile input.
 */
public final class Enrolment {

    public static final String ALPN = "knotless-enroll/1";
    public static final int MAX_MESSAGE_BYTES = 4096;

    private Enrolment() {}

    /**
     * What the node sends: its id and the token's id and secret. The key it enrols is the one it
     * proved in the TLS handshake, so no key travels here and none can be swapped in.
     */
    public record Request(String nodeId, String tokenId, String secret) {
        public Request {
            Names.node(nodeId);
            if (!tokenId.matches("[0-9a-f]{16}")) {
                throw new IllegalArgumentException("the token id is not 16 hex digits");
            }
            if (secret.length() > 64) {
                throw new IllegalArgumentException("the token secret is too long");
            }
        }

        public static Request of(String nodeId, EnrolmentToken token) {
            return new Request(nodeId, token.id(), Base64.getUrlEncoder().withoutPadding().encodeToString(token.secret()));
        }

        /** The secret's bytes; empty when it is not base64 (a wrong token, then). */
        public byte[] secretBytes() {
            try {
                return Base64.getUrlDecoder().decode(secret);
            } catch (IllegalArgumentException e) {
                return new byte[0];
            }
        }

        @Override
        public String toString() {
            return "Request[nodeId=" + nodeId + ", tokenId=" + tokenId + "]";
        }
    }

    /** The runner's one answer. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
    @JsonSubTypes({
        @JsonSubTypes.Type(value = Accepted.class, name = "accepted"),
        @JsonSubTypes.Type(value = Refused.class, name = "refused"),
    })
    public sealed interface Answer permits Accepted, Refused {}

    /** The node is in the runner's nodes file; it obeys the runner key {@code runnerKeyId}. */
    public record Accepted(String runnerKeyId, String runnerPublicKey) implements Answer {
        public Accepted {
            Names.keyId(runnerKeyId);
            Ed25519Keys.decodeBase64Key(runnerPublicKey, "the runner's public key");
        }

        public PublicKey publicKey() {
            return Ed25519Keys.publicKey(Ed25519Keys.decodeBase64Key(runnerPublicKey, "the runner's public key"));
        }
    }

    /** Refused, with one line saying why (never the token). */
    public record Refused(String reason) implements Answer {
        public Refused {
            reason = reason.length() > 300 ? reason.substring(0, 300) : reason;
            reason = reason.replaceAll("\\p{Cntrl}", " ");
        }
    }

    /** The runner's side: decides one request from a node that proved {@code nodeKey} in the handshake. */
    @FunctionalInterface
    public interface Desk {
        Answer enrol(Request request, PublicKey nodeKey, String from);
    }

    static void write(OutputStream out, Object message, ProtocolJson json) throws IOException {
        byte[] bytes = json.write(message);
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw new IOException("an enrolment message is at most " + MAX_MESSAGE_BYTES + " bytes");
        }
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(bytes.length);
        data.write(bytes);
        data.flush();
    }

    static <T> T read(InputStream in, Class<T> type, ProtocolJson json) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length;
        try {
            length = data.readInt();
        } catch (EOFException e) {
            throw new EOFException("the peer closed the enrolment connection without a message");
        }
        if (length < 0 || length > MAX_MESSAGE_BYTES) {
            throw new IOException("an enrolment message of " + Integer.toUnsignedString(length) + " bytes; at most "
                    + MAX_MESSAGE_BYTES + " are accepted");
        }
        byte[] bytes = data.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("the enrolment message ended early");
        }
        try {
            return json.read(bytes, type);
        } catch (ProtocolJson.PayloadException e) {
            throw new IOException("an unreadable enrolment message: " + e.getMessage());
        }
    }
}
