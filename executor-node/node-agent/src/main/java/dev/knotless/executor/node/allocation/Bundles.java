package dev.knotless.executor.node.allocation;

import dev.knotless.executor.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.executor.node.image.ImageException;
import dev.knotless.executor.node.image.ImagePuller;
import dev.knotless.executor.node.protocol.ProcessHardening;
import dev.knotless.executor.node.runc.BundleSpec;
import dev.knotless.executor.node.runc.ImageUser;
import dev.knotless.executor.node.runc.NodeOptions;
import dev.knotless.executor.node.runc.OciConfig;
import dev.knotless.executor.node.runc.RunAs;
import java.nio.file.Path;
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
