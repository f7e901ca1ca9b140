package dev.knotless.node.allocation;

import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.image.ImagePuller;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.ServiceContainer;
import dev.knotless.node.runc.BundleSpec;
import dev.knotless.node.runc.ContainerState;
import dev.knotless.node.runc.HostsFile;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.RunAs;
import dev.knotless.node.runc.Runc;
import dev.knotless.node.runc.RuncException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * What a {@code create_allocation} makes, in the order a repeat can pick up from: the record (its
 * deadline counted from the first create), the image pulled, the root filesystem, the host
 * directories given to the run's user, the hosts file, the bundle and the runc container, then
 * its services in the container's network namespace. A repeat with other values is refused, as is
 * one past the allocation's deadline.
 */
record AllocationCreator(Runc runc, NodeOptions options, AllocationStore store, Bundles bundles, RootfsProvisioner rootfs,
        Clock clock) {

    /** Makes what {@code a} asks for, or checks that what an earlier create made is the same. */
    Result.Done create(Action.CreateAllocation a) throws RuntimeFailure {
        String id = a.allocation();
        Path dir = store.dir(id);
        Optional<AllocationRecord> existing = store.find(id);
        long endsAt = existing.map(AllocationRecord::endsAtMs)
                .orElse(a.lifetimeMs() == 0 ? 0 : clock.millis() + a.lifetimeMs());
        AllocationRecord wanted = new AllocationRecord(id, a.image(), a.cpuMillis(), a.memoryBytes(), a.labels(), a.hardening(),
                endsAt, a.services());
        if (existing.isPresent() && !existing.get().equals(wanted)) {
            throw new RuntimeFailure("allocation " + id + " exists with another image, limits, labels, hardening or services; refused");
        }
        if (wanted.overdue(clock.millis())) {
            throw new RuntimeFailure("allocation " + id + " is past its deadline; refused");
        }
        ImagePuller.PulledImage image = bundles.pull(a.image());
        try {
            if (existing.isEmpty()) {
                store.create(wanted);
            }
            rootfs.prepare(image.rootfs(), dir);
            BundleSpec spec = bundles.bundle(wanted, image);
            for (Path d : List.of(spec.dirs().work(), spec.dirs().steps(), spec.dirs().outputs())) {
                Files.createDirectories(d);
                giveTo(d, options.runAs().orElse(spec.user()));
            }
            if (!Files.exists(spec.dirs().hosts())) {
                HostsFile.write(spec.dirs().hosts(), id, Optional.empty(), RuncRuntime.serviceNames(wanted));
            }
            Path bundle = Files.createDirectories(dir.resolve("bundle"));
            AllocationStore.writeAtomically(bundle.resolve("config.json"), bundles.configJson(spec));
            runc.create(id, bundle);
            createServices(wanted);
            return new Result.Done();
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException | IllegalArgumentException e) {
            throw new RuntimeFailure("create allocation " + id + ": " + e.getMessage(), e);
        }
    }

    /**
     * The allocation's services, created in its container's network namespace (that of its PID 1,
     * which runc made at create): they share its loopback and, once attached, its address, as a
     * pod's containers do. A failure names the service.
     */
    private void createServices(AllocationRecord r) throws RuntimeFailure, RuncException, IOException {
        if (r.services().isEmpty()) {
            return;
        }
        ContainerState run = runc.state(r.allocation()).filter(st -> st.pid() > 0)
                .orElseThrow(() -> new RuntimeFailure("allocation " + r.allocation() + " has no process whose network its services could share"));
        for (int i = 1; i <= r.services().size(); i++) {
            ServiceContainer service = r.services().get(i - 1);
            try {
                ImagePuller.PulledImage image = bundles.pull(service.image());
                Path dir = Files.createDirectories(bundles.serviceDir(r.allocation(), i));
                rootfs.prepare(image.rootfs(), dir);
                BundleSpec spec = bundles.service(r, i, image, RuncRuntime.netns(run));
                Path bundle = Files.createDirectories(dir.resolve("bundle"));
                AllocationStore.writeAtomically(bundle.resolve("config.json"), bundles.configJson(spec));
                runc.create(spec.id(), bundle);
            } catch (RuntimeFailure | RuncException | IllegalArgumentException e) {
                throw new RuntimeFailure("service '" + service.name() + "': " + e.getMessage());
            }
        }
    }

    /** Gives a host directory to the run's user, so its steps can write there; only root can. */
    private static void giveTo(Path dir, RunAs user) throws IOException {
        if (!"root".equals(System.getProperty("user.name"))) {
            return;
        }
        Files.setAttribute(dir, "unix:uid", (int) user.uid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(dir, "unix:gid", (int) user.gid(), LinkOption.NOFOLLOW_LINKS);
    }
}
