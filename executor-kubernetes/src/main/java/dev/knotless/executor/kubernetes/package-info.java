/**
 * The Kubernetes executor: {@link dev.knotless.executor.kubernetes.KubernetesExecutor} and its
 * options record are the only public classes; the Job shape, pending-pod classification, exec
 * plumbing and step stopper are package-private.
 */
package dev.knotless.executor.kubernetes;
