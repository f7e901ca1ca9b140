/**
 * Who signed: DID documents (did:plc from a PLC directory, did:web from the host), the
 * {@code #atproto} signing key and {@code #atproto_pds} service in them, and checking a signature
 * with that key (secp256k1 with BouncyCastle, P-256 with the JDK).
 */
@NullMarked
package dev.knotless.atproto.identity;

import org.jspecify.annotations.NullMarked;
