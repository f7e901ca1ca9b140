package dev.knotless.executor.docker;

import dev.knotless.executor.Executor;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.ExecutorContract;
import dev.knotless.testkit.TestImages;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;

/**
 * The executor contract against the local Docker Engine, on the image {@code scripts/test-images} builds.
 *
 * <p>Why it takes 2-3 minutes: the whole contract (37 scenarios), each a container made and
 * removed, several with deadlines and kill graces that take real seconds.
 */
class DockerExecutorIT extends ExecutorContract {

    private static final DockerExecutor EXECUTOR = new DockerExecutor();
    private static String image;

    @BeforeAll
    static void buildTestImage() {
        image = TestImages.ensureBuilt();
    }

    @Override
    protected Executor executor() {
        return EXECUTOR;
    }

    @Override
    protected String image() {
        return image;
    }

    @Override
    public CuttableExecutor cuttable() throws Exception {
        // A Unix socket in front of the engine's, standing in for a dropped connection.
        CuttingProxy proxy = CuttingProxy.unix(temp, DockerExecutor.DEFAULT_SOCKET);
        return CuttableExecutor.through(new DockerExecutor(proxy.socket()), proxy);
    }

    @Override
    protected List<String> leftovers(String runnerId) throws Exception {
        return EXECUTOR.containersOf(runnerId);
    }
}
