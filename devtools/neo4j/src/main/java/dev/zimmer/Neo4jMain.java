package dev.zimmer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.Transaction;
import org.neo4j.io.ByteUnit;

/**
 * Embedded Neo4j Community with a Bolt connector, for local dev and tests.
 *
 * <p>Env: NEO4J_HOME_DIR (required), NEO4J_PASSWORD (required: auth is always on; the password of
 * user neo4j, set on every start so a new value takes effect on the next restart),
 * NEO4J_BOLT_PORT (default 7687), NEO4J_PAGECACHE_MB (default 1024).
 *
 * <p>Prints {@code NEO4J_READY bolt://127.0.0.1:<port>} once a query has run on the default
 * database, and {@code NEO4J_STOPPED} after a clean shutdown (SIGTERM/SIGINT).
 */
public final class Neo4jMain {
    private static final String HOST = "127.0.0.1";

    private Neo4jMain() {}

    public static void main(String[] args) throws Exception {
        String home = env("NEO4J_HOME_DIR", null);
        if (home == null || home.isBlank()) {
            System.err.println("NEO4J_HOME_DIR is required");
            System.exit(2);
        }
        String password = System.getenv("NEO4J_PASSWORD"); // verbatim: a password may hold spaces
        if (password == null || password.isEmpty()) {
            System.err.println("NEO4J_PASSWORD is required: the password of user neo4j (auth is always on)");
            System.exit(2);
        }
        int port = intEnv("NEO4J_BOLT_PORT", 7687);
        long pagecacheMb = intEnv("NEO4J_PAGECACHE_MB", 1024);
        Path homeDir = Path.of(home).toAbsolutePath();

        long t0 = System.nanoTime();
        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(homeDir)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                    .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(HttpConnector.enabled, false)
                    .setConfig(HttpsConnector.enabled, false)
                    .setConfig(GraphDatabaseSettings.auth_enabled, true)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
                    .setConfig(GraphDatabaseSettings.keep_logical_logs, "100M size")
                    // Default is 256 MiB per tx log file, preallocated, for each of system + neo4j
                    // (~512 MiB per fresh home dir); 32 MiB keeps test dirs small.
                    .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(32))
                    .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofSeconds(60))
                    .setConfig(GraphDatabaseSettings.log_queries, GraphDatabaseSettings.LogQueryLevel.OFF)
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    // Netty's graceful-shutdown quiet period (default 5 s) runs after the databases
                    // are already checkpointed and closed; it only delays process exit.
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .build();
        } catch (Throwable t) {
            System.err.println("NEO4J_FAILED: " + t);
            t.printStackTrace();
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean shutdownStarted = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!shutdownStarted.compareAndSet(false, true)) {
                return;
            }
            System.out.println("NEO4J_STOPPING");
            System.out.flush();
            try {
                dbms.shutdown();
                System.out.println("NEO4J_STOPPED");
            } catch (Throwable t) {
                System.out.println("NEO4J_STOP_FAILED: " + t);
                t.printStackTrace(System.out);
            } finally {
                System.out.flush();
                stopped.countDown();
            }
        }, "neo4j-shutdown"));

        try {
            untilAvailable(() -> setPassword(dbms, password));
        } catch (Throwable t) {
            System.err.println("NEO4J_FAILED: cannot set the password of user neo4j: " + t.getMessage());
            System.exit(1);
        }

        try {
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            untilAvailable(() -> {
                try (Transaction tx = db.beginTx()) {
                    tx.execute("RETURN 1").close();
                    tx.commit();
                }
            });
        } catch (Throwable t) {
            System.err.println("NEO4J_FAILED: readiness query failed: " + t);
            t.printStackTrace();
            System.exit(1);
        }

        long ms = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        System.out.println("neo4j " + org.neo4j.kernel.internal.Version.getNeo4jVersion()
                + " started in " + ms + " ms (home " + homeDir + ", pagecache " + pagecacheMb + " MB)");
        System.out.println("NEO4J_READY bolt://" + HOST + ":" + port);
        System.out.flush();

        // Block until the shutdown hook has run (JVM exit on SIGTERM/SIGINT).
        stopped.await();
    }

    /**
     * Runs step until the databases it touches are available. On a loaded machine the system
     * and default databases can still be starting when the service returns, and a transaction
     * then fails with a transient "not currently available" error that a moment later would
     * succeed; anything else, or still failing after AVAILABILITY_WAIT, is thrown.
     */
    private static void untilAvailable(Runnable step) throws InterruptedException {
        long deadline = System.nanoTime() + AVAILABILITY_WAIT.toNanos();
        while (true) {
            try {
                step.run();
                return;
            } catch (RuntimeException e) {
                if (!isTransient(e) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(250);
            }
        }
    }

    private static final Duration AVAILABILITY_WAIT = Duration.ofSeconds(180);

    private static boolean isTransient(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            // A transaction the timeout terminated: on a loaded machine the first statements
            // of a fresh JVM can outlast it; Neo4j's own advice is a new transaction.
            if (c instanceof org.neo4j.graphdb.TransientFailureException
                    || c instanceof org.neo4j.graphdb.TransactionTerminatedException
                    || c instanceof org.neo4j.dbms.api.DatabaseNotFoundException
                    || c.getClass().getSimpleName().contains("Unavailable")
                    || (c.getMessage() != null && c.getMessage().contains("not currently available"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets the password of user neo4j (created by the first start with the default "neo4j",
     * change required). Embedded transactions bypass auth, so this works whatever the stored
     * password is; an unchanged password is refused by Neo4j, which is the common restart case.
     */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try (Transaction tx = system.beginTx()) {
            tx.execute("ALTER USER neo4j SET PASSWORD $p CHANGE NOT REQUIRED", Map.of("p", password)).close();
            tx.commit();
        } catch (QueryExecutionException e) {
            if (e.getMessage() == null || !e.getMessage().contains("cannot be the same")) {
                throw e;
            }
        }
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return (v == null || v.isBlank()) ? dflt : v.trim();
    }

    private static int intEnv(String name, int dflt) {
        String v = env(name, null);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            System.err.println(name + " must be an integer, got '" + v + "'");
            System.exit(2);
            return dflt;
        }
    }
}
