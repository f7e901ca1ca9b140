package dev.knotless.node.allocation;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * The node's allocation network, as the runtime needs it (implemented over CNI's bridge and
 * host-local plugins). Allocations that are never attached keep a namespace with only loopback.
 */
public interface AllocationNetwork {

    /** The name actions use for it ({@code attach_network}). */
    String name();

    /** Joins the container whose network namespace is {@code netns}; idempotent. Returns its address. */
    String attach(String allocation, Path netns) throws Exception;

    /** Leaves the network and releases the address; the namespace may be gone. Idempotent. */
    void detach(String allocation, Optional<Path> netns) throws Exception;

    /** Allocations holding an address. */
    Set<String> holders() throws Exception;
}
