package dev.knotless.node.allocation;

import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.runc.Runc;
import dev.knotless.node.runc.RuncException;
import dev.knotless.tar.TarExtractor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Uploads and downloads through the allocation's container: a fixed {@code tar} script runs
 * inside it with the path as its argument, never a command taken from an action. {@code /steps}
 * is read-only inside the run and is filled from the host instead.
 */
record Transfers(Runc runc, Bundles bundles, AllocationStore store) {

    /** A download of a directory that does not exist ends the tar shell with this code. */
    private static final int NO_SUCH_DIRECTORY = 100;
    private static final String UPLOAD_SCRIPT = "mkdir -p -- \"$1\" && cd -- \"$1\" && exec tar -x -o -f -";
    /**
     * Top-level names are given in glob order (sorted), so an archive lists them the same way
     * every time, whatever order the directory happens to hold them in; an empty directory is an
     * empty archive (tar refuses to write one).
     */
    private static final String DOWNLOAD_SCRIPT = String.join("\n",
            "cd -- \"$1\" 2>/dev/null || exit " + NO_SUCH_DIRECTORY,
            "set --",
            "for f in * .[!.]* ..?*; do if [ -e \"$f\" ] || [ -L \"$f\" ]; then set -- \"$@\" \"./$f\"; fi; done",
            "if [ $# -eq 0 ]; then exec head -c 10240 /dev/zero; fi",
            "exec tar -c -f - \"$@\"");

    Result.Received upload(Action.Upload a, InputStream tar) throws RuntimeFailure {
        String id = a.allocation();
        Digests.Input in = new Digests.Input(tar, a.maxBytes());
        try {
            store.require(id);
            Optional<Path> steps = store.stepsDir(id, a.path());
            if (steps.isPresent()) {
                // /steps is read-only inside the run, so a step cannot change the steps after it; it is filled from here.
                TarExtractor.into(Files.createDirectories(steps.get()), a.maxBytes()).readFrom(in);
            } else {
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int code = runc.exec(id, bundles.exec(id, List.of("/bin/sh", "-c", UPLOAD_SCRIPT, "sh", a.path())), in,
                        OutputStream.nullOutputStream(), err);
                if (in.over) {
                    throw new RuntimeFailure("upload into " + a.path() + " is over its limit of " + a.maxBytes() + " bytes");
                }
                if (code != 0) {
                    throw new RuntimeFailure("upload into " + a.path() + " failed: " + lastLine(err, "tar exited " + code));
                }
            }
            in.transferTo(OutputStream.nullOutputStream());
            return new Result.Received(id, a.path(), in.count, in.hex());
        } catch (RuntimeFailure e) {
            throw e;
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure(in.over ? "upload into " + a.path() + " is over its limit of " + a.maxBytes() + " bytes"
                    : "upload into " + a.path() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("upload interrupted");
        }
    }

    Result.Downloaded download(Action.Download a, OutputStream tar) throws RuntimeFailure {
        String id = a.allocation();
        Digests.Output out = new Digests.Output(tar);
        try {
            store.require(id);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = runc.exec(id, bundles.exec(id, List.of("/bin/sh", "-c", DOWNLOAD_SCRIPT, "sh", a.path())),
                    InputStream.nullInputStream(), out, err);
            if (code == NO_SUCH_DIRECTORY) {
                throw new RuntimeFailure("no such directory in the run: " + a.path());
            }
            if (code != 0) {
                throw new RuntimeFailure("download of " + a.path() + " failed: " + lastLine(err, "tar exited " + code));
            }
            out.flush();
            return new Result.Downloaded(id, a.path(), out.count, out.hex());
        } catch (RuntimeFailure e) {
            throw e;
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("download of " + a.path() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("download interrupted");
        }
    }

    private static String lastLine(ByteArrayOutputStream err, String otherwise) {
        String text = err.toString(StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return otherwise;
        }
        String[] lines = text.split("\\R");
        String last = lines[lines.length - 1];
        return last.length() > 300 ? last.substring(0, 300) + "…" : last;
    }
}
