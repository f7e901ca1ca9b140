package dev.knotless.executor.node;


import dev.knotless.executor.Executor;
import dev.knotless.executor.RunSpec;
import dev.knotless.node.channel.Connection;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.ExecutorContract;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The executor contract, unchanged, on the node executor: a real node agent process (runc, CNI's
 * bridge and host-local plugins) dialling this runner's hub over loopback TLS, with the project's
 * test image pulled by digest from a real registry on loopback.
 *
 * <p>Why it takes 3-6 minutes: the whole contract (37 scenarios), each an allocation made and
 * deleted on the node, several with deadlines, kill graces and refusals that take real seconds.
 */
class NodeExecutorIT extends ExecutorContract {

    private static NodeFixture node;

    @BeforeAll
    static void startNode() throws Exception {
        node = NodeFixture.startOrSkip("knotless-node-it", true, NodeExecutor.Options.DEFAULT);
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
            System.out.println("node agent log (last lines):\n" + tail(node.agentLog(), 40));
        }
    }

    @Override
    protected Executor executor() {
        return node.executor;
    }

    @Override
    protected String image() {
        return node.image.reference();
    }

    /** The node's one channel to this runner's hub, closed by the runner's side: the agent dials back. */
    @Override
    public CuttableExecutor cuttable() {
        return new CuttableExecutor() {
            @Override
            public Executor executor() {
                return node.executor;
            }

            @Override
            public int cutAll() {
                Optional<Connection> link = node.hub.link(NodeFixture.NODE);
                link.ifPresent(Connection::close);
                return link.isPresent() ? 1 : 0;
            }

            @Override
            public void close() {
                // the fixture's executor serves the whole class
            }
        };
    }

    /**
     * The runner's allocations, and any service container on the node: the class's tests run one
     * at a time, each closing what it opened, so one there after a test was left behind.
     */
    @Override
    protected List<String> leftovers(String runnerId) throws Exception {
        List<String> left = new java.util.ArrayList<>(node.allocationsOf(runnerId));
        left.addAll(node.serviceContainers());
        return left;
    }

    /**
     * The agent's own allocation deadline: the run's backstop (its deadline, the kill grace and
     * {@link RunSpec#BACKSTOP_MARGIN}), looked at every second, then TERM and KILL 2 s later.
     */
    @Override
    protected Optional<Duration> endsAbandonedRunsWithin() {
        return Optional.of(killGrace().plus(RunSpec.BACKSTOP_MARGIN).plusSeconds(10));
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }
}
