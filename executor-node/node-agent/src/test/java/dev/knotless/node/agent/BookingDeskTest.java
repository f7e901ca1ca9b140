package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.ProcessHardening;
import dev.knotless.node.protocol.Result;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BookingDeskTest {

    static final long GIB = 1L << 30;
    static final NodeStatus.Capacity SIX_GIB_TWO_CPUS = new NodeStatus.Capacity(2000, 6 * GIB, 100 * GIB);

    /** A runtime that holds what it created, as the node's allocation list shows it. */
    static class HoldingRuntime extends RecordingRuntime {
        final Map<String, Result.Allocation> held = new TreeMap<>();
        CountDownLatch creating = new CountDownLatch(0);
        /** Counted down when a create has reached the runtime. */
        final CountDownLatch entered = new CountDownLatch(1);

        @Override
        public Result.Done createAllocation(Action.CreateAllocation a) throws RuntimeFailure {
            entered.countDown();
            try {
                creating.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new RuntimeFailure("interrupted");
            }
            synchronized (this) {
                held.put(a.allocation(), new Result.Allocation(a.allocation(), a.image(), Result.State.CREATED, a.labels(), List.of()));
            }
            return new Result.Done();
        }

        @Override
        public synchronized Result.AllocationList listAllocations(Action.ListAllocations action) {
            return new Result.AllocationList(List.copyOf(held.values()));
        }
    }

    final HoldingRuntime runtime = new HoldingRuntime();
    final BookingDesk desk = new BookingDesk(runtime, () -> SIX_GIB_TWO_CPUS);

    static Action.CreateAllocation create(String id, Booking booking, String runner) {
        Map<String, String> labels = new HashMap<>(booking.labels());
        labels.put("dev.knotless.runner", runner);
        return new Action.CreateAllocation(Fixture.NODE, id, Fixture.IMAGE, 1000, 2 * GIB, labels, ProcessHardening.DEFAULT, 60_000,
                List.of());
    }

    @Test
    void bookingsOfSeveralRunnersAddUpAndOneThatDoesNotFitIsRefused() throws Exception {
        desk.createAllocation(create("kn-000000000000000000000001", new Booking(500, 4 * GIB, false), "runner-a"));
        desk.createAllocation(create("kn-000000000000000000000002", new Booking(500, 2 * GIB, false), "runner-b"));

        assertThatThrownBy(() -> desk.createAllocation(create("kn-000000000000000000000003", new Booking(0, 1, false), "runner-b")))
                .isInstanceOf(AllocationRuntime.RuntimeFailure.class)
                .hasMessage("node has no room: kn-000000000000000000000003 books 0 milli-CPU and 1 bytes; 1000 of 2000 milli-CPU"
                        + " and 6442450944 of 6442450944 bytes are booked");
        // CPU is booked separately: 1000 of 2000 are free, and a run asking for CPU only fits.
        desk.createAllocation(create("kn-000000000000000000000004", new Booking(1000, 0, false), "runner-b"));
        assertThatThrownBy(() -> desk.createAllocation(create("kn-000000000000000000000005", new Booking(1, 0, false), "runner-a")))
                .hasMessageStartingWith(Booking.NO_ROOM);
        // a run that books nothing is not held back by a full node: it never said what it needs
        desk.createAllocation(create("kn-000000000000000000000006", Booking.NONE, "runner-a"));
        assertThat(runtime.held).hasSize(4);
    }

    @Test
    void aStoppedAllocationHoldsNothing() throws Exception {
        runtime.held.put("kn-000000000000000000000001", new Result.Allocation("kn-000000000000000000000001", Fixture.IMAGE,
                Result.State.STOPPED, new Booking(2000, 6 * GIB, true).labels(), List.of()));
        desk.createAllocation(create("kn-000000000000000000000002", new Booking(2000, 6 * GIB, false), "runner-a"));
        assertThat(runtime.held).containsKey("kn-000000000000000000000002");
    }

    @Test
    void anUntrustedRunTakesOnlyAnEmptyNodeAndThenHoldsItAlone() throws Exception {
        desk.createAllocation(create("kn-000000000000000000000001", Booking.NONE, "runner-a"));
        assertThatThrownBy(() -> desk.createAllocation(create("kn-000000000000000000000002", new Booking(0, 0, true), "runner-b")))
                .hasMessage("node has no room: an untrusted run needs an empty node and 1 allocation(s) are here");
        runtime.held.clear();
        desk.createAllocation(create("kn-000000000000000000000002", new Booking(0, 0, true), "runner-b"));
        assertThatThrownBy(() -> desk.createAllocation(create("kn-000000000000000000000003", Booking.NONE, "runner-a")))
                .hasMessage("node has no room: an untrusted run holds it");
    }

    @Test
    void creatingAnAllocationThatExistsIsLetThroughAsTheRuntimeIsIdempotent() throws Exception {
        Action.CreateAllocation big = create("kn-000000000000000000000001", new Booking(2000, 6 * GIB, false), "runner-a");
        desk.createAllocation(big);
        desk.createAllocation(big);
        assertThat(runtime.held).hasSize(1);
    }

    @Test
    void twoRunnersCreatingAtOnceCannotBothHaveTheLastRoom() throws Exception {
        runtime.creating = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Result.Done> first = pool.submit(() -> desk.createAllocation(
                    create("kn-000000000000000000000001", new Booking(0, 4 * GIB, false), "runner-a")));
            // the first is inside the runtime (held back by the latch), not yet in the node's list
            assertThat(runtime.entered.await(30, TimeUnit.SECONDS)).as("the first create reached the runtime").isTrue();
            assertThatThrownBy(() -> desk.createAllocation(create("kn-000000000000000000000002", new Booking(0, 4 * GIB, false), "runner-b")))
                    .hasMessageStartingWith(Booking.NO_ROOM + "kn-000000000000000000000002 books 0 milli-CPU and 4294967296 bytes; 0 of");
            runtime.creating.countDown();
            first.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(runtime.held).containsOnlyKeys("kn-000000000000000000000001");
    }
}
