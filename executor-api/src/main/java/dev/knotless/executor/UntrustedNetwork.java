package dev.knotless.executor;

/**
 * What an untrusted run can reach on the network, as the executor really enforces it: said in
 * the run's start notice, and what the contract suite asserts of each executor.
 *
 * @param enforcement what keeps the run off the network
 * @param description one line for the start notice ("untrusted: ...")
 */
public record UntrustedNetwork(Enforcement enforcement, String description) {

    /** The run's network namespace has only loopback (docker {@code NetworkMode: none}, a node's unattached runc). */
    public static final UntrustedNetwork NO_INTERFACE = new UntrustedNetwork(Enforcement.NO_INTERFACE,
            "no network interface but loopback");

    public enum Enforcement {
        /** There is no interface to reach anything with: the kernel enforces it. */
        NO_INTERFACE,
        /** Policy objects the cluster's network plugin enforces, if it implements them. */
        POLICY
    }
}
