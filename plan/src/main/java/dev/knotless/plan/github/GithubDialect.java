package dev.knotless.plan.github;

import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.FileRead;
import dev.knotless.plan.yaml.YamlDialect;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.util.List;

/**
 * GitHub Actions: {@code .github/workflows/*.yml}, and the same files in Forgejo's
 * {@code .forgejo/workflows} and Gitea's {@code .gitea/workflows} (which directory of a commit is
 * read is {@code Dialects}' one rule). Each job of a file, and each combination of its matrix, is
 * one run.
 */
public record GithubDialect() implements YamlDialect {

    /** Where GitHub keeps them; Forgejo's and Gitea's are {@link #DIRECTORIES}. */
    public static final String DIRECTORY = ".github/workflows";

    /** In Forgejo's order of precedence: the first that a commit has is read. */
    public static final List<String> DIRECTORIES = List.of(".forgejo/workflows", ".gitea/workflows", DIRECTORY);

    @Override
    public String name() {
        return "github";
    }

    @Override
    public String directory() {
        return DIRECTORY;
    }

    @Override
    public List<String> directories() {
        return DIRECTORIES;
    }

    @Override
    public List<FileRead> read(String file, Node root) throws WorkflowException {
        return read(file, root, CommitFiles.NONE);
    }

    @Override
    public List<FileRead> read(String file, Node root, CommitFiles commit) throws WorkflowException {
        return new FileReader(file, commit).read(root);
    }
}
