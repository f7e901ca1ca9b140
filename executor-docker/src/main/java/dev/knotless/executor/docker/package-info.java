/**
 * The Docker executor: {@link dev.knotless.executor.docker.DockerExecutor} is the only public
 * class. Package-private: the Engine API client and its HTTP/1.1 exchange over the Unix socket,
 * the exec stream framing, the container's create body (which maps the run's {@code Hardening}),
 * the warm pool, and the session split into its steps and its transfers. The stop of a step's
 * processes ({@code StepStopper}) and the rules every session obeys ({@code Guarded}) come from
 * executor-api.
 */
@NullMarked
package dev.knotless.executor.docker;

import org.jspecify.annotations.NullMarked;
