/**
 * The Docker executor: {@link dev.knotless.executor.docker.DockerExecutor} is the only public
 * class; the Engine API client, the HTTP/1.1 exchange over the Unix socket, the exec stream
 * framing and the step stopper are package-private.
 */
package dev.knotless.executor.docker;
