package dev.knotless.node.allocation;

import dev.knotless.node.image.Trees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Per-run cost of an allocation's root filesystem, overlay against copy, on an unpacked image tree
 * (its runs: bench/results/node.md). Needs root for the overlay.
 *
 * <p>Arguments: image tree (e.g. a copy of /usr/lib/jvm/java-17-openjdk-amd64 with a base system), work directory, runs.
 */
public final class RootfsBench {

    public static void main(String[] args) throws Exception {
        Path image = Path.of(args[0]);
        Path work = Files.createDirectories(Path.of(args[1]));
        int runs = Integer.parseInt(args[2]);
        for (RootfsProvisioner.Mode mode : RootfsProvisioner.Mode.values()) {
            RootfsProvisioner rootfs = new RootfsProvisioner(work, mode);
            long[] prepare = new long[runs];
            long[] release = new long[runs];
            for (int i = 0; i < runs; i++) {
                Path allocation = Files.createDirectories(work.resolve(mode + "-" + i));
                long t0 = System.nanoTime();
                rootfs.prepare(image, allocation);
                long t1 = System.nanoTime();
                rootfs.release(allocation);
                Trees.delete(allocation);
                long t2 = System.nanoTime();
                prepare[i] = (t1 - t0) / 1_000_000;
                release[i] = (t2 - t1) / 1_000_000;
            }
            Arrays.sort(prepare);
            Arrays.sort(release);
            System.out.printf("%s: prepare median %d ms (min %d, max %d); release+delete median %d ms (min %d, max %d)%n", mode,
                    prepare[runs / 2], prepare[0], prepare[runs - 1], release[runs / 2], release[0], release[runs - 1]);
        }
    }
}
