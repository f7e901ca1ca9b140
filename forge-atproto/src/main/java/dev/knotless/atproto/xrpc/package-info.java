/** An XRPC client for the few calls the runner makes to its PDS, with bounded reads. */
@NullMarked
package dev.knotless.atproto.xrpc;

import org.jspecify.annotations.NullMarked;
