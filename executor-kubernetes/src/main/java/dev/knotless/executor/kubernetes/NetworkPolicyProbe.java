package dev.knotless.executor.kubernetes;

/** Finds out whether the cluster enforces the untrusted runs' NetworkPolicy ({@link PodProbe} on a real one). */
@FunctionalInterface
interface NetworkPolicyProbe {

    /** Probes with the policies of {@code runnerId}'s untrusted pods; never throws: what goes wrong is {@link PolicyVerdict.Unenforced}. */
    PolicyVerdict probe(String runnerId);
}
