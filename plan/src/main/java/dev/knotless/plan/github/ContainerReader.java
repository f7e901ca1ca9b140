package dev.knotless.plan.github;

import dev.knotless.plan.Service;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads a job's {@code container} (its image, {@code env} and the options listed in the reference)
 * and its {@code services} (GitHub's shape: image, env, ports, health options), each failing at
 * its line on what is not carried out.
 */
final class ContainerReader {

    static final Keys CONTAINER = new Keys(List.of("image", "env", "options"), Map.of(
            "credentials", "registry credentials for a job's image are not carried out yet",
            "volumes", "volumes are not carried out here: a run's environment is fresh and shares nothing with the host",
            "ports", "a job's container publishes no port here; its services reach it by the run's network"));
    static final Keys SERVICE = new Keys(List.of("image", "env", "ports", "options"), Map.of(
            "credentials", "registry credentials for a service's image are not carried out yet",
            "volumes", "volumes are not carried out here: a run's environment is fresh and shares nothing with the host"));
    static final List<String> HEALTH_OPTIONS = List.of("--health-cmd", "--health-interval", "--health-timeout",
            "--health-retries", "--health-start-period");
    private static final Pattern HOST = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern PORT = Pattern.compile("(?:[0-9]{1,5}:)?([0-9]{1,5})(?:/tcp)?");

    private final Fields fields;
    private final Problems problems;

    ContainerReader(Fields fields, Problems problems) {
        this.fields = fields;
        this.problems = problems;
    }

    /** The job's image; its {@code env} goes into {@code variables}. */
    @Nullable String container(Node node, String path, ReadTime values, Map<String, String> variables)
            throws WorkflowException {
        if (node instanceof Scalar) {
            return image(node, path, values);
        }
        MapNode map = fields.map(node, path, "an image, or a map such as {image: node:20, env: {...}}");
        CONTAINER.check(map, path, fields, problems);
        String image = null;
        for (Entry e : map.entries().values()) {
            String fieldPath = path + "." + e.key();
            switch (e.key()) {
                case "image" -> image = image(e.value(), fieldPath, values);
                case "env" -> variables.putAll(values.variables(e.value(), fieldPath));
                case "options" -> options(e.value(), fieldPath, values, List.of());
                default -> { }
            }
        }
        if (image == null) {
            throw fields.error(map.at(), path + ".image", "required");
        }
        return image;
    }

    List<Service> services(Node node, String path, ReadTime values) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of service names to {image, env, ports}");
        List<Service> services = new ArrayList<>();
        for (Entry entry : map.entries().values()) {
            String servicePath = YamlTree.child(path, entry.key());
            problems.read(() -> service(entry, servicePath, values)).ifPresent(services::add);
        }
        return services;
    }

    private Service service(Entry entry, String path, ReadTime values) throws WorkflowException {
        if (!HOST.matcher(entry.key()).matches()) {
            throw fields.error(entry.keyAt(), path, "'" + entry.key() + "' is not a host name, which a service is reached"
                    + " by here: lower-case letters, digits and '-'");
        }
        MapNode map = fields.map(entry.value(), path, "a map such as {image: postgres:16, ports: [5432]}");
        SERVICE.check(map, path, fields, problems);
        String image = null;
        Map<String, String> env = Map.of();
        List<Integer> ports = new ArrayList<>();
        for (Entry e : map.entries().values()) {
            String fieldPath = path + "." + e.key();
            switch (e.key()) {
                case "image" -> image = image(e.value(), fieldPath, values);
                case "env" -> env = values.variables(e.value(), fieldPath);
                case "ports" -> ports.addAll(ports(e.value(), fieldPath, values));
                case "options" -> options(e.value(), fieldPath, values, HEALTH_OPTIONS);
                default -> { }
            }
        }
        if (image == null) {
            throw fields.error(map.at(), path + ".image", "required");
        }
        return new Service(entry.key(), image, env, List.of(), ports, Service.DEFAULT_WAIT);
    }

    private String image(Node node, String path, ReadTime values) throws WorkflowException {
        String image = values.text(node, path, "an image");
        if (image.isBlank()) {
            throw fields.error(node.at(), path, "is empty");
        }
        if (image.startsWith("docker://")) {
            image = image.substring("docker://".length());
        }
        return image;
    }

    /** {@code HOST:CONTAINER} or {@code CONTAINER}: the service's own port, which the steps reach by its name. */
    private List<Integer> ports(Node node, String path, ReadTime values) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list such as [5432] or ['5432:5432'], got " + node.kind().described());
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            String itemPath = path + "[" + i + "]";
            Node item = list.items().get(i);
            String text = values.text(item, itemPath, "a port");
            var m = PORT.matcher(text.strip());
            if (!m.matches() || Integer.parseInt(m.group(1)) < 1 || Integer.parseInt(m.group(1)) > 65535) {
                throw fields.error(item.at(), itemPath, "'" + text + "' is not a TCP port mapping such as 5432 or 5432:5432"
                        + (text.contains("/udp") ? " (UDP is not waited for nor carried out here)" : ""));
            }
            int port = Integer.parseInt(m.group(1));
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        return ports;
    }

    /** Docker's {@code options}: only those listed are taken (and mean what the reference says); each takes a value. */
    private void options(Node node, String path, ReadTime values, List<String> allowed) throws WorkflowException {
        List<String> words = words(values.text(node, path, "docker options"));
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            String option = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
            if (!allowed.contains(option)) {
                throw fields.error(node.at(), path, "the docker option '" + option + "' is not carried out here"
                        + (allowed.isEmpty() ? "; a job's container takes none" : "; a service takes only "
                        + String.join(", ", allowed) + " (it is waited for by its ports)"));
            }
            if (!word.contains("=")) {
                i++;
            }
        }
    }

    /** Words as a shell splits them: quotes keep spaces, and are removed. */
    static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : text.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
