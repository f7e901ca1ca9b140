package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.Result;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node's own check that an allocation's {@link Booking} fits, in front of the runtime. Each
 * runner places runs from what it believes the node holds; when several runners share a node, two
 * of them can believe the same room is free. The node decides: a new allocation whose booking does
 * not fit beside those it holds (and those being created now) fails with {@link Booking#NO_ROOM},
 * and the runner places the run again from a fresh allocation list. An untrusted run's allocation
 * goes only to an empty node and, while it is there, no other goes there.
 *
 * <p>Creating an allocation that exists is let through unchecked: the runtime's operations are
 * idempotent, and a resend must converge, not be refused by its own booking.
 */
public final class BookingDesk extends ForwardingRuntime {

    private final Supplier<NodeStatus.Capacity> capacity;
    private final Map<String, Booking> creating = new HashMap<>();

    public BookingDesk(AllocationRuntime runtime, Supplier<NodeStatus.Capacity> capacity) {
        super(runtime);
        this.capacity = capacity;
    }

    @Override
    public Result.Done createAllocation(Action.CreateAllocation a) throws RuntimeFailure {
        Booking wanted = Booking.of(a.labels());
        synchronized (creating) {
            Result.AllocationList held = runtime.listAllocations(new Action.ListAllocations(a.node()));
            boolean exists = held.allocations().stream().anyMatch(h -> h.allocation().equals(a.allocation()));
            if (!exists) {
                refuseUnlessItFits(a.allocation(), wanted, held);
            }
            creating.put(a.allocation(), wanted);
        }
        try {
            return runtime.createAllocation(a);
        } finally {
            synchronized (creating) {
                creating.remove(a.allocation());
            }
        }
    }

    private void refuseUnlessItFits(String allocation, Booking wanted, Result.AllocationList held) throws RuntimeFailure {
        Booking booked = Booking.NONE;
        int others = creating.size();
        for (Booking b : creating.values()) {
            booked = booked.plus(b);
        }
        for (Result.Allocation h : held.allocations()) {
            if (h.state() != Result.State.STOPPED && !creating.containsKey(h.allocation())) {
                booked = booked.plus(Booking.of(h.labels()));
                others++;
            }
        }
        if (booked.exclusive()) {
            throw new RuntimeFailure(Booking.NO_ROOM + "an untrusted run holds it");
        }
        if (wanted.exclusive() && others > 0) {
            throw new RuntimeFailure(Booking.NO_ROOM + "an untrusted run needs an empty node and " + others + " allocation(s) are here");
        }
        NodeStatus.Capacity cap = capacity.get();
        if (wanted.milliCpu() > 0 && booked.milliCpu() + wanted.milliCpu() > cap.milliCpu()
                || wanted.memoryBytes() > 0 && booked.memoryBytes() + wanted.memoryBytes() > cap.memoryBytes()) {
            throw new RuntimeFailure(Booking.NO_ROOM + allocation + " books " + wanted.milliCpu() + " milli-CPU and "
                    + wanted.memoryBytes() + " bytes; " + booked.milliCpu() + " of " + cap.milliCpu() + " milli-CPU and "
                    + booked.memoryBytes() + " of " + cap.memoryBytes() + " bytes are booked");
        }
    }
}
