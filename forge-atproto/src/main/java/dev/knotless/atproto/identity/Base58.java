package dev.knotless.atproto.identity;

import java.math.BigInteger;
import java.util.Arrays;

/** Base58 (the bitcoin alphabet), as multibase {@code z} keys use it. Inputs are short: a key is 35 bytes. */
final class Base58 {

    private static final String ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    private static final BigInteger BASE = BigInteger.valueOf(58);

    private Base58() {}

    static String encode(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        BigInteger n = new BigInteger(1, bytes);
        while (n.signum() > 0) {
            BigInteger[] qr = n.divideAndRemainder(BASE);
            s.append(ALPHABET.charAt(qr[1].intValue()));
            n = qr[0];
        }
        for (int i = 0; i < bytes.length && bytes[i] == 0; i++) {
            s.append('1');
        }
        return s.reverse().toString();
    }

    static byte[] decode(String text) throws IdentityException {
        BigInteger n = BigInteger.ZERO;
        int zeros = 0;
        while (zeros < text.length() && text.charAt(zeros) == '1') {
            zeros++;
        }
        for (int i = 0; i < text.length(); i++) {
            int digit = ALPHABET.indexOf(text.charAt(i));
            if (digit < 0) {
                throw new IdentityException("a key with a character that is not base58 ('" + text.charAt(i) + "')");
            }
            n = n.multiply(BASE).add(BigInteger.valueOf(digit));
        }
        byte[] magnitude = n.signum() == 0 ? new byte[0] : n.toByteArray();
        if (magnitude.length > 0 && magnitude[0] == 0) {
            magnitude = Arrays.copyOfRange(magnitude, 1, magnitude.length); // BigInteger's sign byte
        }
        byte[] out = new byte[zeros + magnitude.length];
        System.arraycopy(magnitude, 0, out, zeros, magnitude.length);
        return out;
    }
}
