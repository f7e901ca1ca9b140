package dev.knotless.forge.embedded;

import dev.knotless.forge.ForgeException;
import dev.knotless.forge.Repository;

import dev.knotless.checkout.Git;
import dev.knotless.checkout.GitRemote;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code git ls-remote --refs}: the refs a repository has now, without fetching. Git runs as
 * {@link Git} runs it (never waiting for a person, only the file, git, http(s) and ssh transports,
 * killed at the deadline). Stateless; safe from any thread.
 */
final class LsRemote {

    private static final Logger LOG = LoggerFactory.getLogger(LsRemote.class);
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
    private static final Pattern CREDENTIAL = Pattern.compile("(://)[^/@]*@");

    private LsRemote() {}

    /**
     * Every ref of {@code repo} and the sha it names (tags unpeeled, no {@code HEAD}), sorted.
     *
     * @throws ForgeException "could not list the refs of NAME: <git's complaint>"
     */
    static Map<String, String> refs(Repository repo, Path workDir, Duration timeout) throws IOException {
        long started = System.nanoTime();
        Git.Result result;
        try {
            GitRemote remote = GitRemote.of(repo.cloneUrl());
            result = Git.run(workDir, timeout, List.of("ls-remote", "--refs", remote.url()), remote);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            throw new ForgeException("could not list the refs of " + repo.name() + ": " + scrub(String.valueOf(e.getMessage())));
        }
        if (!result.ok()) {
            throw new ForgeException("could not list the refs of " + repo.name() + ": "
                    + scrub(result.stderr().isBlank() ? "git ls-remote failed (exit " + result.exitCode() + ")" : Git.oneLine(result.stderr())));
        }
        LOG.debug("git ls-remote repo={} ms={}", repo.name(), (System.nanoTime() - started) / 1_000_000);
        return parse(result.text());
    }

    static Map<String, String> parse(String listing) {
        Map<String, String> refs = new TreeMap<>();
        for (String line : listing.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0 && SHA.matcher(line.substring(0, tab)).matches()) {
                refs.put(line.substring(tab + 1), line.substring(0, tab));
            }
        }
        return refs;
    }

    static String scrub(String text) {
        return CREDENTIAL.matcher(text).replaceAll("$1");
    }
}
