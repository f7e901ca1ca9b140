/**
 * {@code checks verify}: from an AT-URI to a verdict, resolving the repository's DID, fetching the
 * record's proof from its PDS and checking it against the DID's key.
 */
@NullMarked
package dev.knotless.atproto.verify;

import org.jspecify.annotations.NullMarked;
