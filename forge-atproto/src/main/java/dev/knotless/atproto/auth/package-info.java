/**
 * Who is calling: ATProto service-auth tokens (the short JWTs a PDS mints with
 * {@code com.atproto.server.getServiceAuth}) checked against the issuer's DID document, for the
 * XRPC endpoints of a server such as a tangled spindle. Uses {@link dev.knotless.atproto.identity}
 * and nothing else of ours.
 */
@NullMarked
package dev.knotless.atproto.auth;

import org.jspecify.annotations.NullMarked;
