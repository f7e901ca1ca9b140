/**
 * The Kubernetes executor: {@link dev.knotless.executor.kubernetes.KubernetesExecutor}, its options
 * record and its counters are the only public classes. Package-private: the Job shape (which maps
 * the run's {@code Hardening} to the container's security context), pending-pod classification,
 * the exec plumbing, and the session split into its steps ({@code PodSteps}: detached steps,
 * reattach, the exec opened ahead) and its transfers ({@code PodTransfers}), over the one
 * {@code RunPod} they share. The stop of a step's processes ({@code StepStopper}) and the rules
 * every session obeys ({@code Guarded}) come from executor-api.
 */
@NullMarked
package dev.knotless.executor.kubernetes;

import org.jspecify.annotations.NullMarked;
