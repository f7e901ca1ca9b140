package dev.knotless.executor;

/** How far the run's code is trusted; decides isolation, secrets and cache write-back. */
public enum Trust {
    /** A push, or a pull request by a trusted author: may share a node and reach the network. */
    TRUSTED,
    /** A pull request by an untrusted author, or a merge-queue batch: isolated, no network. */
    UNTRUSTED
}
