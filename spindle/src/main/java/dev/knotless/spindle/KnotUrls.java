package dev.knotless.spindle;

/**
 * Where a knot is reached: {@code wss://} and {@code https://}, or plain {@code ws://} and {@code
 * http://} for a knot under test on this machine (tangled's spindle calls that dev mode).
 */
public record KnotUrls(boolean plain) {

    /** What git clones a repository from: {@code https://KNOT/DID/NAME}, as tangled's own spindle clones it. */
    public String cloneUrl(WatchedRepos.Watched repo) {
        return (plain ? "http://" : "https://") + repo.knot() + "/" + repo.did() + "/" + repo.name();
    }
}
