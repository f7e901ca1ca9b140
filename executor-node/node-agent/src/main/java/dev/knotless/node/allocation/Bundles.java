package dev.knotless.node.allocation;

import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.registry.ImageException;
import dev.knotless.node.image.ImagePuller;
import dev.knotless.node.protocol.ProcessHardening;
import dev.knotless.node.protocol.ServiceContainer;
import dev.knotless.node.runc.BundleSpec;
import dev.knotless.node.runc.ImageUser;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.OciConfig;
import dev.knotless.node.runc.RunAs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each allocation's bundle spec (made from its record and its image, kept once made) and the
 * {@code runc exec} process of a command inside its container.
 */
final class Bundles {

    private final ImagePuller puller;
    private final OciConfig oci;
    private final NodeOptions options;
    private final AllocationStore store;
    private final Map<String, BundleSpec> bundles = new ConcurrentHashMap<>();

    Bundles(ImagePuller puller, OciConfig oci, NodeOptions options, AllocationStore store) {
        this.puller = puller;
        this.oci = oci;
        this.options = options;
        this.store = store;
    }

    /** The {@code runc exec} process JSON of {@code args} in the allocation's container, in {@code /work}. */
    byte[] exec(String id, List<String> args) throws RuntimeFailure {
        BundleSpec spec = bundles.get(id);
        if (spec == null) {
            AllocationRecord r = store.require(id);
            spec = bundle(r, pull(r.image()));
        }
        return oci.execProcessJson(spec, args, spec.env(), "/work");
    }

    BundleSpec bundle(AllocationRecord r, ImagePuller.PulledImage image) {
        return bundles.computeIfAbsent(r.allocation(), id -> {
            Path dir = store.dir(id);
            Path rootfs = dir.resolve("rootfs");
            RunAs user = ImageUser.resolve(image.config().user(), rootfs);
            Map<String, String> annotations = new TreeMap<>();
            r.labels().forEach((k, v) -> annotations.put("dev.knotless.label." + k, v));
            annotations.put("dev.knotless.image", r.image());
            ProcessHardening h = r.hardening();
            RunAs runAs = h.ids().map(ids -> new RunAs(ids[0], ids[1])).orElse(user);
            return new BundleSpec(id, rootfs, BundleSpec.AllocationDirs.under(dir),
                    new BundleSpec.Resources(r.memoryBytes(), Math.max(10, r.cpuMillis())), runAs, image.config().env(),
                    Optional.empty(), annotations, options, h);
        });
    }

    /**
     * Service {@code index} (from 1) of allocation {@code r}: its image's rootfs under {@code
     * services/s<index>/}, its entrypoint with the service's command (or the image's), the image's
     * environment with the service's over it, the allocation's limits and hardening under the
     * image's user, in the allocation's network namespace {@code netns}.
     */
    BundleSpec service(AllocationRecord r, int index, ImagePuller.PulledImage image, Path netns) {
        ServiceContainer service = r.services().get(index - 1);
        Path dir = serviceDir(r.allocation(), index);
        Path rootfs = dir.resolve("rootfs");
        RunAs user = ImageUser.resolve(image.config().user(), rootfs);
        List<String> args = new ArrayList<>(image.config().entrypoint());
        args.addAll(service.command().isEmpty() ? image.config().cmd() : service.command());
        Map<String, String> env = new LinkedHashMap<>();
        for (String e : image.config().env()) {
            env.put(e.substring(0, Math.max(0, e.indexOf('='))), e);
        }
        for (String e : service.env()) {
            env.put(e.substring(0, e.indexOf('=')), e);
        }
        Map<String, String> annotations = new TreeMap<>();
        r.labels().forEach((k, v) -> annotations.put("dev.knotless.label." + k, v));
        annotations.put("dev.knotless.image", service.image());
        annotations.put("dev.knotless.service", service.name());
        return new BundleSpec(r.serviceId(index), rootfs, BundleSpec.AllocationDirs.under(store.dir(r.allocation())),
                new BundleSpec.Resources(r.memoryBytes(), Math.max(10, r.cpuMillis())), user, List.copyOf(env.values()),
                Optional.of(netns), annotations, options, r.hardening(),
                Optional.of(new BundleSpec.ServiceProcess(args, image.config().workingDir())));
    }

    /** Where service {@code index} of the allocation keeps its root filesystem and bundle. */
    Path serviceDir(String allocation, int index) {
        return store.dir(allocation).resolve("services").resolve("s" + index);
    }

    /** The allocation's {@code config.json}. */
    byte[] configJson(BundleSpec spec) {
        return oci.configJson(spec);
    }

    ImagePuller.PulledImage pull(String image) throws RuntimeFailure {
        try {
            return puller.pull(image);
        } catch (ImageException e) {
            throw new RuntimeFailure(e.getMessage());
        }
    }

    void forget(String id) {
        bundles.remove(id);
    }
}
