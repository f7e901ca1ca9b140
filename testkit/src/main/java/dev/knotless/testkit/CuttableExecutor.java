package dev.knotless.testkit;

import dev.knotless.executor.Executor;

/**
 * An executor whose connections to what it drives (an engine, an API server, an agent) pass a
 * real proxy that can cut every one of them at once, standing in for a dropped connection or a
 * proxy's cut; closing it closes the executor and the proxy.
 */
public interface CuttableExecutor extends AutoCloseable {

    /**
     * Where a test runs a step whose connection it cuts: a thread of its own, never the common
     * pool (one thread on a two-core machine), which a step that goes on reattaching after its
     * test would hold for everything else in the process.
     */
    java.util.concurrent.Executor OWN_THREAD = task -> Thread.ofVirtual().name("cut-step").start(task);

    /**
     * {@code executor}, whose connections pass {@code proxy}: {@link #cutAll()} is the proxy's,
     * and closing closes the executor, then the proxy.
     */
    static CuttableExecutor through(Executor executor, CuttingProxy proxy) {
        return new CuttableExecutor() {
            @Override
            public Executor executor() {
                return executor;
            }

            @Override
            public int cutAll() {
                return proxy.cutAll();
            }

            @Override
            public void close() throws java.io.IOException {
                executor.close();
                proxy.close();
            }
        };
    }

    Executor executor();

    /** Closes every connection open now (new ones are let through as before); how many it closed. */
    int cutAll();

    @Override
    void close() throws Exception;
}
