package dev.knotless.node.allocation;

import dev.knotless.executor.ShellPayload;
import dev.knotless.node.agent.AllocationRuntime;
import dev.knotless.node.agent.Attachment;
import dev.knotless.node.image.ImagePuller;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.ServiceContainer;
import dev.knotless.node.runc.ContainerState;
import dev.knotless.node.runc.HostsFile;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.OciConfig;
import dev.knotless.node.runc.Runc;
import dev.knotless.node.runc.RuncException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's {@link AllocationRuntime}: allocations are runc containers made from pulled images, each with
 * its own root filesystem over the image's ({@link RootfsProvisioner}: an overlay, or a copy) and its own host directories for {@code /work},
 * {@code /steps} and {@code /outputs} ({@link AllocationCreator}); networks come from CNI. Every
 * operation converges when repeated (the agent re-runs one whose ledger entry a crash lost).
 *
 * <p>Layout under the state directory: {@code allocations/<id>/} holds {@code allocation.json},
 * {@code bundle/config.json}, {@code rootfs/} (and {@code overlay/{upper,work}/}), {@code work/}, {@code steps/}, {@code outputs/} and
 * {@code step-output/<n>/} ({@link AllocationStore}).
 *
 * <p>What runs inside a container is fixed here, never taken from an action: steps run {@link
 * ShellPayload#receiver()} with the action's payload on stdin ({@link Steps}); uploads and
 * downloads run {@code tar} with the path as an argument ({@link Transfers}).
 */
public final class RuncRuntime implements AllocationRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(RuncRuntime.class);

    private final Runc runc;
    private final Optional<AllocationNetwork> network;
    private final AllocationStore store;
    private final Bundles bundles;
    private final Transfers transfers;
    private final Steps steps;
    private final RootfsProvisioner rootfs;
    private final AllocationCreator creator;
    private final Clock clock;
    /** Allocations a create is making now: their deadline is not acted on until it returns. */
    private final Set<String> creating = ConcurrentHashMap.newKeySet();

    public RuncRuntime(ImagePuller puller, Runc runc, OciConfig oci, NodeOptions options,
            Optional<AllocationNetwork> network, Path stateDir) throws IOException {
        this(puller, runc, oci, options, network, stateDir, Clock.systemUTC());
    }

    /** @param clock the node's clock, which its allocations' deadlines are kept by */
    public RuncRuntime(ImagePuller puller, Runc runc, OciConfig oci, NodeOptions options,
            Optional<AllocationNetwork> network, Path stateDir, Clock clock) throws IOException {
        this.clock = clock;
        this.runc = runc;
        this.network = network;
        this.store = new AllocationStore(stateDir);
        this.bundles = new Bundles(puller, oci, options, store);
        this.transfers = new Transfers(runc, bundles, store);
        this.steps = new Steps(runc, bundles, store);
        this.rootfs = new RootfsProvisioner(stateDir);
        this.creator = new AllocationCreator(runc, options, store, bundles, rootfs, clock);
    }

    @Override
    public Result.Done pullImage(Action.PullImage action) throws RuntimeFailure {
        bundles.pull(action.image());
        return new Result.Done();
    }

    @Override
    public Result.Done createAllocation(Action.CreateAllocation a) throws RuntimeFailure {
        String id = a.allocation();
        if (!creating.add(id)) {
            throw new RuntimeFailure("allocation " + id + " is being created by another action now");
        }
        try {
            return creator.create(a);
        } finally {
            creating.remove(id);
        }
    }

    /** The names of the allocation's services, in their order (service {@code i} is the {@code i}th). */
    static List<String> serviceNames(AllocationRecord r) {
        return r.services().stream().map(ServiceContainer::name).toList();
    }

    @Override
    public Result.AllocationRunning startAllocation(Action.StartAllocation a) throws RuntimeFailure {
        try {
            AllocationRecord r = store.require(a.allocation());
            runc.start(a.allocation());
            for (int i = 1; i <= r.services().size(); i++) {
                try {
                    runc.start(r.serviceId(i));
                } catch (RuncException e) {
                    throw new RuntimeFailure("service '" + r.services().get(i - 1).name() + "': " + e.getMessage());
                }
            }
            return new Result.AllocationRunning(a.allocation());
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("start allocation " + a.allocation() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.Done attachNetwork(Action.AttachNetwork a) throws RuntimeFailure {
        AllocationNetwork net = network.filter(n -> n.name().equals(a.network())).orElseThrow(() -> new RuntimeFailure(
                "this node has no network named " + a.network()
                        + network.map(n -> " (it has " + n.name() + ")").orElse(" (it has none)")));
        try {
            store.require(a.allocation());
            ContainerState state = runc.state(a.allocation()).filter(s -> s.pid() > 0 && s.status() != ContainerState.Status.STOPPED)
                    .orElseThrow(() -> new RuntimeFailure("allocation " + a.allocation() + " has no live container to attach"));
            String address = net.attach(a.allocation(), netns(state));
            HostsFile.write(store.dir(a.allocation()).resolve("hosts"), a.allocation(), Optional.of(address),
                    serviceNames(store.require(a.allocation())));
            LOG.info("allocation={} network={} address={}", a.allocation(), net.name(), address);
            return new Result.Done();
        } catch (RuntimeFailure e) {
            throw e;
        } catch (Exception e) {
            throw new RuntimeFailure("attach " + a.allocation() + " to " + a.network() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.Received upload(Action.Upload a, InputStream tar) throws RuntimeFailure {
        return transfers.upload(a, tar);
    }

    @Override
    public Result.Downloaded download(Action.Download a, OutputStream tar) throws RuntimeFailure {
        return transfers.download(a, tar);
    }

    @Override
    public Result.StepExited runStep(Action.RunStep a, Attachment.StepOutput output) throws RuntimeFailure {
        return steps.run(a, output);
    }

    @Override
    public Result.Done stopAllocation(Action.StopAllocation a) throws RuntimeFailure {
        try {
            if (a.stepsOnly()) {
                steps.stop(a.allocation(), Duration.ofMillis(a.graceMs()));
            } else {
                for (String service : store.find(a.allocation()).map(AllocationRecord::serviceIds).orElse(List.of())) {
                    stopContainer(service, Duration.ofMillis(a.graceMs()));
                }
                stopContainer(a.allocation(), Duration.ofMillis(a.graceMs()));
            }
            return new Result.Done();
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("stop " + a.allocation() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("stop interrupted");
        }
    }

    @Override
    public Result.Done deleteAllocation(Action.DeleteAllocation a) throws RuntimeFailure {
        if (creating.contains(a.allocation())) {
            // a runner cut off mid-create and back already: deleting under the create would leave half of it
            throw new RuntimeFailure("allocation " + a.allocation() + " is being created now; delete it once that returns"
                    + " (its own deadline removes it otherwise)");
        }
        delete(a.allocation());
        return new Result.Done();
    }

    private void delete(String id) throws RuntimeFailure {
        try {
            Optional<AllocationRecord> record = store.find(id);
            if (record.isPresent()) {
                // first: they live in the allocation's network namespace
                for (int i = 1; i <= record.get().services().size(); i++) {
                    runc.delete(record.get().serviceId(i));
                    rootfs.release(bundles.serviceDir(id, i));
                }
            }
            Optional<ContainerState> state = runc.state(id);
            if (network.isPresent()) {
                network.get().detach(id, state.filter(s -> s.pid() > 0 && s.status() != ContainerState.Status.STOPPED)
                        .map(RuncRuntime::netns));
            }
            runc.delete(id);
            steps.forget(id);
            bundles.forget(id);
            rootfs.release(store.dir(id));
            store.delete(id);
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (Exception e) {
            throw new RuntimeFailure("delete allocation " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.AllocationList listAllocations(Action.ListAllocations a) throws RuntimeFailure {
        try {
            Map<String, ContainerState> containers = new TreeMap<>();
            for (ContainerState s : runc.list()) {
                containers.put(s.id(), s);
            }
            List<Result.Allocation> list = new ArrayList<>();
            for (String id : store.ids()) {
                Optional<AllocationRecord> r = store.find(id);
                if (r.isEmpty()) {
                    continue;
                }
                ContainerState c = containers.get(id);
                Result.State state = c == null ? Result.State.STOPPED : switch (c.status()) {
                    case CREATING, CREATED -> Result.State.CREATED;
                    case RUNNING, PAUSED -> Result.State.RUNNING;
                    case STOPPED -> Result.State.STOPPED;
                };
                list.add(new Result.Allocation(id, r.get().image(), state, r.get().labels(), store.stepNumbers(id)));
            }
            return new Result.AllocationList(list);
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("list allocations: " + e.getMessage(), e);
        }
    }

    @Override
    public Result.ServiceLog readServiceLog(Action.ReadServiceLog a) throws RuntimeFailure {
        try {
            AllocationRecord r = store.require(a.allocation());
            int index = serviceNames(r).indexOf(a.service()) + 1;
            if (index == 0) {
                throw new RuntimeFailure("allocation " + a.allocation() + " has no service '" + a.service() + "'");
            }
            Path log = runc.initLog(r.serviceId(index));
            if (!Files.exists(log)) {
                return new Result.ServiceLog(a.allocation(), a.service(), new byte[0]);
            }
            try (InputStream in = Files.newInputStream(log)) {
                return new Result.ServiceLog(a.allocation(), a.service(), in.readNBytes(a.maxBytes()));
            }
        } catch (IOException e) {
            throw new RuntimeFailure("log of service '" + a.service() + "': " + e.getMessage(), e);
        }
    }

    /**
     * What the node holds that no allocation record accounts for: containers under its runc root
     * and network addresses with no record (a crash between making them and recording, or a state
     * directory restored from a backup). Reported to the runner; only a signed {@code
     * delete_allocation} removes them.
     */
    public List<String> orphans() throws Exception {
        Set<String> recorded = new HashSet<>(store.ids());
        for (String id : store.ids()) {
            store.find(id).ifPresent(r -> recorded.addAll(r.serviceIds()));
        }
        Set<String> found = new TreeSet<>();
        for (ContainerState s : runc.list()) {
            if (!recorded.contains(s.id())) {
                found.add(s.id());
            }
        }
        if (network.isPresent()) {
            for (String holder : network.get().holders()) {
                if (!recorded.contains(holder)) {
                    found.add(holder);
                }
            }
        }
        found.removeIf(id -> !id.matches("[a-z0-9][a-z0-9-]{0,62}"));
        return List.copyOf(found);
    }

    /**
     * Ends and removes every allocation past its own deadline ({@link Action.CreateAllocation#lifetimeMs}),
     * connected runner or not: its processes get TERM, then KILL after {@code grace}, then it is
     * deleted as {@code delete_allocation} would. One that a create is making now waits for the
     * next call. Returns the ids it removed.
     */
    public List<String> endOverdue(Duration grace) throws IOException, InterruptedException {
        List<String> ended = new ArrayList<>();
        long now = clock.millis();
        for (String id : store.ids()) {
            try {
                Optional<AllocationRecord> r = store.find(id);
                if (r.isEmpty() || !r.get().overdue(now) || creating.contains(id)) {
                    continue;
                }
                LOG.warn("allocation={} passed its deadline {} ms ago; ending and removing it", id, now - r.get().endsAtMs());
                stopContainer(id, grace);
                delete(id);
                ended.add(id);
            } catch (RuntimeFailure | RuncException | IOException e) {
                LOG.warn("allocation={} is past its deadline but could not be ended: {}", id, e.getMessage());
            }
        }
        return ended;
    }

    private void stopContainer(String id, Duration grace) throws RuncException, IOException, InterruptedException {
        runc.kill(id, "TERM");
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ContainerState> s = runc.state(id);
            if (s.isEmpty() || s.get().status() == ContainerState.Status.STOPPED) {
                return;
            }
            Thread.sleep(50);
        }
        runc.kill(id, "KILL");
    }

    /** The network namespace of a container's PID 1. */
    static Path netns(ContainerState state) {
        return Path.of("/proc", Long.toString(state.pid()), "ns", "net");
    }
}
