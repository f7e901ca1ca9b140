package dev.knotless.runner.state;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteConfig;

/**
 * The state database, {@code <state>/runner.db}: its one connection, its lock, its transactions
 * and its schema ({@link Migrations}, applied in order on open; {@code schema_version} holds the
 * versions applied; a database newer than this runner is refused). The tables' classes
 * ({@link RunQueue}, {@link ProgressJournal}, {@link MergeQueueRows}, {@link PollCursors}) do
 * their work through {@link #locked} and {@link #transaction}.
 *
 * <p>WAL mode with {@code synchronous=FULL}: a transaction that returned is on disk.
 *
 * <h2>Concurrency</h2>
 * Thread-safe: one connection, used under one lock. Other processes may open the same database
 * (SQLite's own locks order them; writes wait up to 10 s, then fail with SQLITE_BUSY, after which
 * the connection works on: see {@link #begin}).
 */
final class StateDatabase implements AutoCloseable {

    /** Work on the connection, under the lock. */
    interface Work<T> {
        T run(Connection db) throws SQLException, IOException;
    }

    private final ReentrantLock lock = new ReentrantLock();
    /* @GuardedBy("lock") */
    private final Connection db;
    private final Clock clock;
    private final Path file;

    private StateDatabase(Path file, Connection db, Clock clock) {
        this.file = file;
        this.db = db;
        this.clock = clock;
    }

    /**
     * Opens (creating and migrating as needed) {@code <stateDir>/runner.db}, the runner user's
     * alone: made 0600 before SQLite opens it (SQLite gives its {@code -wal} and {@code -shm} the
     * database file's mode), and a database left wider, with its companions, tightened to 0600.
     */
    static StateDatabase open(Path stateDir, Clock clock) throws IOException {
        Files.createDirectories(stateDir);
        Path file = stateDir.resolve("runner.db").toAbsolutePath();
        ownerOnly(file);
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(10_000);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        config.enforceForeignKeys(true);
        try {
            Connection db = connect(config, file);
            StateDatabase database = new StateDatabase(file, db, clock);
            try {
                database.migrate();
            } catch (IOException | RuntimeException e) {
                db.close();
                throw e;
            }
            return database;
        } catch (SQLException e) {
            throw failure("open", file, e);
        }
    }

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    /** Creates {@code file} 0600, or tightens it and its {@code -wal}/{@code -shm} to 0600 when they are wider. */
    private static void ownerOnly(Path file) throws IOException {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            for (String suffix : List.of("", "-wal", "-shm")) {
                Path f = file.resolveSibling(file.getFileName() + suffix);
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && !Files.getPosixFilePermissions(f).equals(OWNER_ONLY)) {
                    Files.setPosixFilePermissions(f, OWNER_ONLY);
                }
            }
        }
    }

    /**
     * Opens a connection. Applying the journal mode as the connection opens does not wait for the
     * busy timeout, so a process opening the database while another creates or migrates it gets
     * SQLITE_BUSY at once; it is tried again for up to 10 s, as any other write would wait.
     */
    private static Connection connect(SQLiteConfig config, Path file) throws SQLException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return config.createConnection("jdbc:sqlite:" + file);
            } catch (SQLException e) {
                if (e.getMessage() == null || !e.getMessage().contains("SQLITE_BUSY") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while opening " + file);
            }
        }
    }

    Path file() {
        return file;
    }

    /** Now, by the store's clock, as the text the tables keep. */
    String now() {
        return clock.instant().toString();
    }

    /** The schema version the database is at. */
    int schemaVersion() throws IOException {
        return locked("read the schema version of", StateDatabase::version);
    }

    <T> T locked(String what, Work<T> work) throws IOException {
        lock.lock();
        try {
            return work.run(db);
        } catch (SQLException e) {
            throw failure(what, file, e);
        } finally {
            lock.unlock();
        }
    }

    /** {@code work} in one IMMEDIATE transaction: committed (and on disk) when this returns. */
    <T> T transaction(String what, Work<T> work) throws IOException {
        return locked(what, connection -> {
            begin(connection);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | IOException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        });
    }

    /**
     * Begins a transaction. The driver marks the connection as in a transaction before it asks
     * SQLite for one, so a BEGIN that fails (SQLITE_BUSY: another connection held the write lock
     * past the busy timeout) would leave it marked with none begun, and every later transaction
     * would fail ("cannot commit - no transaction is active"); the mark is put back here.
     */
    private static void begin(Connection connection) throws SQLException {
        try {
            connection.setAutoCommit(false);
        } catch (SQLException e) {
            try {
                connection.setAutoCommit(true);
            } catch (SQLException nothingToCommit) {
                // expected: the driver's flag is back, and there was no transaction to end
            }
            throw e;
        }
    }

    private void migrate() throws IOException {
        locked("migrate", connection -> {
            try (Statement create = connection.createStatement()) {
                create.executeUpdate("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
            }
            return null;
        });
        int current = schemaVersion();
        if (current > Migrations.latest()) {
            throw new IOException(file + " has schema version " + current + ", newer than this runner knows ("
                    + Migrations.latest() + "); use a newer knotless-run");
        }
        for (int version = current + 1; version <= Migrations.latest(); version++) {
            int target = version;
            transaction("migrate to schema version " + version, connection -> {
                if (version(connection) >= target) {
                    return null; // another process got there first
                }
                try (Statement step = connection.createStatement()) {
                    for (String sql : Migrations.STEPS.get(target - 1)) {
                        step.executeUpdate(sql);
                    }
                }
                try (PreparedStatement mark = connection.prepareStatement(
                        "INSERT INTO schema_version(version, applied_at) VALUES (?, ?)")) {
                    mark.setInt(1, target);
                    mark.setString(2, now());
                    mark.executeUpdate();
                }
                return null;
            });
        }
    }

    private static int version(Connection connection) throws SQLException {
        return (int) count(connection, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    }

    static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    static @Nullable Instant instant(@Nullable String text) {
        return text == null ? null : Instant.parse(text);
    }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            db.close();
        } catch (SQLException e) {
            throw failure("close", file, e);
        } finally {
            lock.unlock();
        }
    }

    private static IOException failure(String what, Path file, SQLException e) {
        return new IOException("could not " + what + " " + file + ": " + e.getMessage(), e);
    }
}
