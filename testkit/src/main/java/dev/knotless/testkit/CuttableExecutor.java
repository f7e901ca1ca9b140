package dev.knotless.testkit;

import dev.knotless.executor.Executor;

/**
 * An executor whose connections to what it drives (an engine, an API server, an agent) pass a
 * real proxy that can cut every one of them at once, standing in for a dropped connection or a
 * proxy's cut; closing it closes the executor and the proxy.
 */
public interface CuttableExecutor extends AutoCloseable {

    Executor executor();

    /** Closes every connection open now (new ones are let through as before); how many it closed. */
    int cutAll();

    @Override
    void close() throws Exception;
}
