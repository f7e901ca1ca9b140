package dev.knotless.node.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Arrays;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The bytes on the wire (docs/reference/node.md):
 *
 * <pre>
 *   magic      4 bytes   "KNA1" for an action envelope, "KNO1" for an observation
 *   keyIdLen   1 byte    1..64
 *   keyId      keyIdLen  ASCII
 *   payloadLen 4 bytes   big-endian, 1..MAX_PAYLOAD
 *   payload    payloadLen canonical JSON, UTF-8
 *   signature  64 bytes  Ed25519 over every byte before it
 * </pre>
 *
 * <p>Parsing reads lengths only; the payload stays opaque bytes until {@link #verify} has passed,
 * so no JSON decoder ever sees unauthenticated input. The magic is signed too, so an observation
 * can never be replayed as an action.
 */
public final class SignedFrame {

    public static final int MAX_PAYLOAD = 16 * 1024 * 1024;
    private static final int MAX_KEY_ID = 64;

    public enum Kind {
        ACTION("KNA1"), OBSERVATION("KNO1");

        private final byte[] magic;

        Kind(String magic) {
            this.magic = magic.getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final byte[] bytes;
    private final Kind kind;
    private final String keyId;
    private final int payloadOffset;
    private final int payloadLength;

    private SignedFrame(byte[] bytes, Kind kind, String keyId, int payloadOffset, int payloadLength) {
        this.bytes = bytes;
        this.kind = kind;
        this.keyId = keyId;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
    }

    public static byte[] sign(Kind kind, String keyId, PrivateKey key, byte[] payload) {
        Names.keyId(keyId);
        if (payload.length < 1 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload must be 1.." + MAX_PAYLOAD + " bytes, was " + payload.length);
        }
        byte[] id = keyId.getBytes(StandardCharsets.US_ASCII);
        int signedLength = 4 + 1 + id.length + 4 + payload.length;
        ByteBuffer out = ByteBuffer.allocate(signedLength + Ed25519Keys.SIGNATURE_BYTES);
        out.put(kind.magic).put((byte) id.length).put(id).putInt(payload.length).put(payload);
        byte[] bytes = out.array();
        byte[] signature = Ed25519Keys.sign(key, bytes, 0, signedLength);
        System.arraycopy(signature, 0, bytes, signedLength, signature.length);
        return bytes;
    }

    /** Splits a frame into its fields without interpreting the payload. */
    public static SignedFrame parse(Kind expected, byte @Nullable [] bytes) throws FrameException {
        if (bytes == null || bytes.length < 4 + 1 + 1 + 4 + 1 + Ed25519Keys.SIGNATURE_BYTES) {
            throw new FrameException("frame is too short");
        }
        if (!Arrays.equals(bytes, 0, 4, expected.magic, 0, 4)) {
            throw new FrameException("frame does not start with " + new String(expected.magic, StandardCharsets.US_ASCII));
        }
        int idLength = bytes[4] & 0xff;
        if (idLength < 1 || idLength > MAX_KEY_ID || 5 + idLength + 4 > bytes.length) {
            throw new FrameException("key id length " + idLength + " is out of range");
        }
        String keyId = new String(bytes, 5, idLength, StandardCharsets.US_ASCII);
        try {
            Names.keyId(keyId);
        } catch (IllegalArgumentException e) {
            throw new FrameException(e.getMessage());
        }
        int lengthAt = 5 + idLength;
        int payloadLength = ByteBuffer.wrap(bytes, lengthAt, 4).getInt();
        int payloadOffset = lengthAt + 4;
        if (payloadLength < 1 || payloadLength > MAX_PAYLOAD
                || (long) payloadOffset + payloadLength + Ed25519Keys.SIGNATURE_BYTES != bytes.length) {
            throw new FrameException("payload length " + Integer.toUnsignedString(payloadLength)
                    + " does not match a frame of " + bytes.length + " bytes");
        }
        return new SignedFrame(bytes.clone(), expected, keyId, payloadOffset, payloadLength);
    }

    public Kind kind() {
        return kind;
    }

    public String keyId() {
        return keyId;
    }

    /** True when the signature verifies over the exact bytes received, under this key. */
    public boolean verify(PublicKey key) {
        int signedLength = payloadOffset + payloadLength;
        byte[] signature = Arrays.copyOfRange(bytes, signedLength, bytes.length);
        return Ed25519Keys.verify(key, bytes, 0, signedLength, signature);
    }

    /** The payload bytes: only for decoding after {@link #verify} returned true. */
    public byte[] payload() {
        return Arrays.copyOfRange(bytes, payloadOffset, payloadOffset + payloadLength);
    }

    /** SHA-256 of the payload, in hex: the envelope digest the idempotency ledger keys on. */
    public String payloadDigest() {
        return sha256Hex(bytes, payloadOffset, payloadLength);
    }

    /** SHA-256 of any bytes, in hex: observations name the frame they answer by this. */
    public static String sha256Hex(byte[] data, int offset, int length) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(data, offset, length);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String sha256Hex(byte[] data) {
        return sha256Hex(data, 0, data.length);
    }

    /** The frame's layout is wrong; nothing in it can be trusted or even attributed to a key. */
    public static final class FrameException extends Exception {
        public FrameException(String message) {
            super(message);
        }
    }
}
