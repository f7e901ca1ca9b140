/**
 * The ATProto forge: checks published as {@code dev.knotless.check} records in the runner's own
 * repository (docs/design/atproto.md). {@link dev.knotless.atproto.AtprotoCheckPublisher} is the
 * entry point; {@link dev.knotless.atproto.xrpc} the client it talks to the PDS with.
 */
@NullMarked
package dev.knotless.atproto;

import org.jspecify.annotations.NullMarked;
