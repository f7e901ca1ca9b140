package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeCapacityTest {

    @Test
    void freeIsAllocatableMinusTheRequestsOfTheNodesLivePodsAndTheLargestHasTheMostCpu() {
        List<Node> nodes = List.of(node("n1", "2", "4Gi", false), node("n2", "4", "8Gi", false), node("n3", "16", "64Gi", true));
        List<Pod> pods = List.of(
                pod("a", "n1", "Running", "600m", "900Mi"),
                pod("b", "n2", "Running", "3500m", "1Gi"),
                pod("c", "n1", "Succeeded", "2", "4Gi"),
                pod("d", null, "Pending", "2", "512Mi"));
        NodeCapacity.Free largest = NodeCapacity.largest(nodes, pods).orElseThrow();
        assertThat(largest).isEqualTo(new NodeCapacity.Free("n1", 1_400, (4L << 30) - (900L << 20)));
        assertThat(NodeCapacity.describe(largest)).isEqualTo("1.4 CPU and 3.1Gi");
    }

    @Test
    void whatAPodAskedForIsTheSumOfItsContainersRequests() {
        Pod pod = new PodBuilder(pod("p", null, "Pending", "2", "512Mi")).editSpec().addNewContainer().withName("side")
                .withNewResources().withRequests(Map.of("cpu", new Quantity("250m"))).endResources().endContainer().endSpec().build();
        assertThat(NodeCapacity.describe(NodeCapacity.requested(pod))).isEqualTo("2.25 CPU and 512Mi");
        assertThat(NodeCapacity.describe(NodeCapacity.requested(new PodBuilder().withNewMetadata().withName("none").endMetadata()
                .withNewSpec().addNewContainer().withName("run").endContainer().endSpec().build())))
                .isEqualTo("no CPU and no memory");
    }

    @Test
    void quantitiesReadAsAPersonWritesThem() {
        assertThat(NodeCapacity.cpu(2_000)).isEqualTo("2");
        assertThat(NodeCapacity.cpu(500)).isEqualTo("0.5");
        assertThat(NodeCapacity.memory(512L << 20)).isEqualTo("512Mi");
        assertThat(NodeCapacity.memory((3L << 30) + (200L << 20))).isEqualTo("3.1Gi");
        assertThat(NodeCapacity.memory(1000)).isEqualTo("1000B");
        assertThat(NodeCapacity.largest(List.of(node("off", "8", "8Gi", true)), List.of())).isEmpty();
    }

    private static Node node(String name, String cpu, String memory, boolean cordoned) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus().withAllocatable(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory))).endStatus()
                .build();
    }

    private static Pod pod(String name, String node, String phase, String cpu, String memory) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("run").withNewResources()
                .withRequests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory))).endResources().endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus()
                .build();
    }
}
