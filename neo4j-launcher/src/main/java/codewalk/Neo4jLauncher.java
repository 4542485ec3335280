package codewalk;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Starts a local Neo4j 5.26 Community server (Bolt + HTTP + Browser) in this JVM through neo4j-harness,
 * prints one {@code NEO4J_READY ...} line and blocks until SIGTERM/SIGINT.
 *
 * <p>With {@code --password-file P} authentication is on: the user {@code neo4j} gets the password the
 * file holds (its first line), set on every start, so the file is the one place it is kept; it is never
 * an argument (other users can read a command line). Without it authentication is off. The HTTP API
 * answers only its own origin (Access-Control-Allow-Origin), so a web page elsewhere cannot use it.
 *
 * <p>Options (argument form wins over the system property):
 * <pre>
 *   --host H            -Dcodewalk.host        listen/advertised address   (127.0.0.1)
 *   --bolt-port N       -Dcodewalk.bolt.port   Bolt port                   (7687)
 *   --http-port N       -Dcodewalk.http.port   HTTP port (Browser)         (7474)
 *   --work-dir P        -Dcodewalk.workdir     harness work dir            (target/neo4j-work)
 *   --persist           -Dcodewalk.persist=true  keep the store across restarts
 *   --data-dir P        -Dcodewalk.datadir     store dir when persisting   (WORK_DIR/data)
 *   --pagecache-mb N    -Dcodewalk.pagecache.mb page cache size            (256)
 *   --tx-memory-mb N    -Dcodewalk.txmemory.mb  cap on all transactions' memory (512)
 *   --password-file P                          authentication on, neo4j's password in P
 * </pre>
 *
 * <p>The harness runs the server from a random 32-hex folder under the work dir and deletes that
 * folder on close. Ephemeral mode keeps the store there (a fresh empty database on every start).
 * Persistent mode points {@code server.directories.data} at a fixed folder outside the random one,
 * so the databases and transaction logs survive; only the harness' logs are deleted on close.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        String host = System.getProperty("codewalk.host", "127.0.0.1");
        int boltPort = Integer.getInteger("codewalk.bolt.port", 7687);
        int httpPort = Integer.getInteger("codewalk.http.port", 7474);
        Path workDir = Path.of(System.getProperty("codewalk.workdir", "target/neo4j-work"));
        boolean persist = Boolean.getBoolean("codewalk.persist");
        String dataDirArg = System.getProperty("codewalk.datadir");
        long pageCacheMb = Long.getLong("codewalk.pagecache.mb", 256L);
        long txMemoryMb = Long.getLong("codewalk.txmemory.mb", 512L);
        Path passwordFile = null;

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--host" -> host = value(args, ++i, a);
                case "--bolt-port" -> boltPort = Integer.parseInt(value(args, ++i, a));
                case "--http-port" -> httpPort = Integer.parseInt(value(args, ++i, a));
                case "--work-dir" -> workDir = Path.of(value(args, ++i, a));
                case "--persist" -> persist = true;
                case "--no-persist" -> persist = false;
                case "--data-dir" -> dataDirArg = value(args, ++i, a);
                case "--pagecache-mb" -> pageCacheMb = Long.parseLong(value(args, ++i, a));
                case "--tx-memory-mb" -> txMemoryMb = Long.parseLong(value(args, ++i, a));
                case "--password-file" -> passwordFile = Path.of(value(args, ++i, a));
                case "-h", "--help" -> {
                    System.out.println("usage: Neo4jLauncher [--host H] [--bolt-port N] [--http-port N] "
                            + "[--work-dir P] [--persist [--data-dir P]] [--pagecache-mb N] [--tx-memory-mb N] "
                            + "[--password-file P]");
                    return;
                }
                default -> {
                    System.err.println("NEO4J_FAILED unknown argument: " + a);
                    System.exit(2);
                }
            }
        }

        workDir = workDir.toAbsolutePath().normalize();
        Files.createDirectories(workDir);
        String password = null;
        if (passwordFile != null) {
            password = Files.readAllLines(passwordFile).stream().findFirst().orElse("").strip();
            if (password.length() < 8) {
                System.err.println("NEO4J_FAILED the password in " + passwordFile + " is shorter than 8 characters");
                System.exit(2);
            }
        }

        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(workDir)
                .withConfig(GraphDatabaseSettings.auth_enabled, password != null)
                .withConfig(GraphDatabaseSettings.udc_enabled, false)
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .withConfig(GraphDatabaseSettings.memory_transaction_global_max_size, ByteUnit.mebiBytes(txMemoryMb))
                .withConfig(GraphDatabaseSettings.default_advertised_address, new SocketAddress(host))
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress(host, boltPort))
                // Advertise the ports actually used: Browser connects to what discovery advertises,
                // and the defaults (7687/7474) would point it at another server.
                .withConfig(BoltConnector.advertised_address, new SocketAddress(host, boltPort))
                .withConfig(HttpConnector.enabled, true)
                .withConfig(HttpConnector.listen_address, new SocketAddress(host, httpPort))
                .withConfig(HttpConnector.advertised_address, new SocketAddress(host, httpPort))
                .withConfig(HttpsConnector.enabled, false)
                // CORS: web pages of other origins may not read the HTTP API's answers (default "*")
                .withConfig(ServerSettings.http_access_control_allow_origin, "http://" + host + ":" + httpPort)
                // Netty's graceful-shutdown quiet period (default 5 s per event loop group) made a
                // SIGTERM take ~12 s; a local single-user server has nothing to drain.
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);

        Path dataDir = null;
        if (persist) {
            dataDir = (dataDirArg != null ? Path.of(dataDirArg) : workDir.resolve("data")).toAbsolutePath().normalize();
            Files.createDirectories(dataDir);
            builder = builder.withConfig(GraphDatabaseSettings.data_directory, dataDir);
        }

        long t0 = System.nanoTime();
        final Neo4j neo4j;
        try {
            neo4j = builder.build();
        } catch (RuntimeException e) {
            System.err.println("NEO4J_FAILED " + rootMessage(e));
            e.printStackTrace();
            System.exit(1);
            return;
        }

        if (password != null) {
            try {
                // The system database, in process: no login needed. Set on every start, so a store first served
                // without authentication, or a new password file, takes the file's password.
                neo4j.databaseManagementService().database("system").executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
            } catch (RuntimeException e) {
                // "cannot be the same": a persisted store that has this password already (Neo4j refuses to set it again)
                if (!rootMessage(e).contains("cannot be the same")) {
                    System.err.println("NEO4J_FAILED cannot set the password: " + rootMessage(e));
                    neo4j.close();
                    System.exit(1);
                    return;
                }
            }
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                neo4j.close();
                System.out.println("NEO4J_STOPPED");
            } catch (RuntimeException e) {
                System.err.println("NEO4J_STOP_FAILED " + rootMessage(e));
            } finally {
                System.out.flush();
                stopped.countDown();
            }
        }, "neo4j-shutdown"));

        String bolt = "bolt://" + host + ":" + neo4j.boltURI().getPort();
        String http = "http://" + host + ":" + neo4j.httpURI().getPort();
        System.out.printf("neo4j %s started in %.1f s, %s%n",
                org.neo4j.kernel.internal.Version.getNeo4jVersion(),
                (System.nanoTime() - t0) / 1e9,
                persist ? "persistent data dir " + dataDir : "ephemeral store under " + workDir);
        System.out.println("NEO4J_READY bolt=" + bolt + " http=" + http + " auth=" + (password != null));
        System.out.flush();
        stopped.await();
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            System.err.println("NEO4J_FAILED " + flag + " needs a value");
            System.exit(2);
        }
        return args[i];
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
