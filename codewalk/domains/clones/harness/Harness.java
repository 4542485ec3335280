package codewalk.clones;

import java.io.File;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * One JVM runs a whole batch: it compiles each unit's sources once (javac through javax.tools, skipped when
 * the stamp says they were compiled before) and then runs the unit, printing one JSON line per result.
 *
 * <p>Mode "calls": each unit names two or more targets (class + method with the same parameters) and a
 * list of inputs; every target is called on every input in a worker thread with a deadline. When the
 * targets disagree, the input is run again with a longer deadline (a slow but finishing call is not a
 * difference), in reverse order. Outcomes agree when their canonical texts are equal: return values
 * deeply (floating values exactly, as Double.equals), exceptions by class. A unit stops after
 * stop_after differing inputs, or after MAX_EXHAUSTED inputs on which every target ran out of time or memory. Mode "suites": each unit is a JUnit 4 test class (EvoSuite suites),
 * run with JUnitCore in the worker thread; per-test outcomes are printed.
 *
 * <p>A call that passes its deadline is stopped (Thread.stop, still present in Java 17). If the thread
 * will not die, the JVM reports the input as abandoned and exits with code 3; the caller starts a new
 * JVM after it. Usage: {@code java codewalk.clones.Harness calls|suites JOB.json}.
 */
public final class Harness {
    static final int ABANDONED = 3;
    static final int MAX_EXHAUSTED = 10;
    private static PrintStream out;

    public static void main(String[] args) throws Exception {
        // Our JSON lines go to the real stdout, our own failures to the real stderr; what the code under test
        // prints is dropped.
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8");
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace(err);
            Runtime.getRuntime().halt(1);
        }
    }

    @SuppressWarnings("removal")
    private static void run(String[] args) throws Exception {
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(sink);
        System.setIn(InputStream.nullInputStream());
        @SuppressWarnings("unchecked")
        Map<String, Object> job = (Map<String, Object>) Json.parse(Files.readString(Path.of(args[1])));
        long deadline = number(job.get("deadline_ms")).longValue();
        int cap = number(job.get("max_chars")).intValue();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> units = (List<Map<String, Object>>) job.get("units");
        String classpath = (String) job.get("classpath");
        String release = (String) job.get("release");
        sha256("warm-up");  // the JDK classes our own code needs, initialised here, never in a stoppable worker
        Compiler compiler = new Compiler(classpath, release);
        Worker worker = new Worker();
        if (args[0].equals("calls")) {
            System.setErr(sink);
            System.setSecurityManager(new Guard());
        }
        try {
            for (int u = 0; u < units.size(); u++) {
                Map<String, Object> unit = units.get(u);
                String errors = compiler.errors(unit);
                int id = number(unit.get("id")).intValue();
                if (errors != null) {
                    emit(Map.of("u", id, "compiled", false, "errors", errors));
                    continue;
                }
                if (args[0].equals("calls")) calls(worker, unit, id, deadline, cap);
                else suite(worker, unit, id, deadline);
            }
        } catch (Abandoned a) {
            emit(a.where);
            out.flush();
            Runtime.getRuntime().halt(ABANDONED);
        } catch (Restart r) {  // nothing printed for the item: the next JVM runs it again, in a clean state
            out.flush();
            Runtime.getRuntime().halt(ABANDONED);
        }
        out.flush();
        if (Boolean.TRUE.equals(job.get("exit"))) System.exit(0);  // a normal exit, so a class-data archive is written
        Runtime.getRuntime().halt(0);  // stray non-daemon threads of the code under test do not keep us alive
    }

    // -- calls ---------------------------------------------------------------------------------------
    @SuppressWarnings("unchecked")
    private static void calls(Worker worker, Map<String, Object> unit, int id, long deadline, int cap) throws Exception {
        List<Class<?>> params = new ArrayList<>();
        for (Object t : (List<Object>) unit.get("params")) params.add(type((String) t));
        Class<?>[] types = params.toArray(new Class<?>[0]);
        ClassLoader loader = LOADERS.computeIfAbsent((String) unit.get("classes"), Harness::loader);
        List<Target> targets = new ArrayList<>();
        try {
            for (Object t : (List<Object>) unit.get("targets")) {
                Map<String, Object> spec = (Map<String, Object>) t;
                targets.add(new Target(loader.loadClass((String) spec.get("class")), (String) spec.get("method"), types));
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            emit(Map.of("u", id, "compiled", false, "errors", "cannot call the targets: " + e));
            return;
        }
        emit(Map.of("u", id, "compiled", true));
        List<Object> inputs = (List<Object>) unit.get("inputs");
        int first = number(unit.get("first")).intValue();
        int stopAfter = number(unit.get("stop_after")).intValue();
        long longMs = unit.containsKey("long_ms") ? number(unit.get("long_ms")).longValue() : 20 * deadline;
        int longRuns = unit.containsKey("long_runs") ? number(unit.get("long_runs")).intValue() : LONG_RUNS;
        long budget = unit.containsKey("budget_ms") ? number(unit.get("budget_ms")).longValue() : Long.MAX_VALUE;
        long started = System.nanoTime();
        int differences = 0;
        int exhausted = 0;  // inputs on which every target ran out of time or memory: they cost, and tell little
        int slow = 0;  // inputs on which only some targets ran out: undecided, never a difference
        String end = "all";
        int i = 0;
        for (; i < inputs.size(); i++) {
            if (differences >= stopAfter) { end = "witnesses"; break; }
            if (exhausted >= MAX_EXHAUSTED) { end = "exhausted"; break; }
            if (slow >= MAX_SLOW) { end = "slow"; break; }
            if ((System.nanoTime() - started) / 1_000_000 > budget) { end = "budget"; break; }
            List<Object> input = (List<Object>) inputs.get(i);
            Map<String, Object> where = Map.of("u", id, "i", first + i, "abandoned", true);
            List<String> outcomes = new ArrayList<>();
            boolean tainted = Worker.stops > 0;  // by an earlier input: a stop during this one does not count
            for (Target target : targets) outcomes.add(worker.call(target, input, types, deadline, cap, where));
            if (tainted && outcomes.stream().anyMatch(Harness::poisoned)) throw new Restart();
            Map<String, Object> line = new LinkedHashMap<>(Map.of("u", id, "i", first + i, "out", outcomes));
            String verdict = "agree";
            if (!outcomes.stream().allMatch(o -> same(o, outcomes.get(0)))) {
                // Run again, in reverse order, with four times the deadline: a slow but finishing call decides.
                List<String> again = new ArrayList<>();
                for (int k = targets.size() - 1; k >= 0; k--)
                    again.add(0, worker.call(targets.get(k), input, types, 4 * deadline, cap, where));
                if (tainted && again.stream().anyMatch(Harness::poisoned)) throw new Restart();
                line.put("again", again);
                List<String> last = decided(outcomes, again);
                // A target still out of time while another finished gets a long budget (a few per unit).
                if (last.stream().anyMatch(Harness::exhausted) && !last.stream().allMatch(Harness::exhausted)
                        && longRuns > 0 && !last.contains("unstable")) {
                    longRuns--;
                    List<String> longer = new ArrayList<>(last);
                    for (int k = 0; k < targets.size(); k++)
                        if (exhausted(last.get(k)))
                            longer.set(k, worker.call(targets.get(k), input, types, longMs, cap, where));
                    line.put("long", longer);
                    last = decided(last, longer);
                }
                line.put("final", last);
                verdict = verdict(last);
            }
            line.put("v", verdict);
            differences += verdict.equals("differ") ? 1 : 0;
            slow += verdict.equals("slow") ? 1 : 0;
            exhausted += outcomes.stream().allMatch(Harness::exhausted) ? 1 : 0;
            emit(line);
        }
        emit(Map.of("u", id, "end", end, "ran", i));
    }

    static final int LONG_RUNS = 3;  // long re-runs per unit; after them, a one-sided timeout is undecided at once
    static final int MAX_SLOW = 25;  // a unit ends after this many undecided (one-sided timeout) inputs

    /**
     * The outcome per target after a re-run: a call that finished decides, whichever run it was (a later
     * run that ran out of time does not undo a finished one). Two finished runs with different outcomes
     * make the input "unstable". A re-run that fails on a class broken by this input's own stopped call
     * (see Restart) is no outcome: it counts as out of time.
     */
    static List<String> decided(List<String> before, List<String> after) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < before.size(); k++) {
            String b = before.get(k), a = after.get(k);
            if (b.equals("unstable")) out.add(b);
            else if (exhausted(b) && (exhausted(a) || poisoned(a))) out.add(b);
            else if (exhausted(b)) out.add(a);
            else if (exhausted(a) || a.equals(b)) out.add(b);
            else out.add("unstable");
        }
        return out;
    }

    /**
     * One input's verdict from the decided outcomes: "unstable" (a target gave two different finished
     * outcomes: nondeterministic), "agree" (all equal, or all out of time or memory: no evidence),
     * "slow" (some ran out, some finished: time is the only difference seen, so undecided and never a
     * witness), else "differ": a behaviour difference on an input on which every target terminated.
     */
    static String verdict(List<String> last) {
        if (last.contains("unstable")) return "unstable";
        if (last.stream().allMatch(o -> same(o, last.get(0)))) return "agree";
        if (last.stream().anyMatch(Harness::exhausted)) return "slow";
        return "differ";
    }

    /**
     * Equal outcomes; and two calls that both ran out of resources (past the deadline, or out of memory)
     * agree, since which limit a runaway computation hits first depends on the machine's load.
     */
    static boolean same(String a, String b) {
        return a.equals(b) || (exhausted(a) && exhausted(b));
    }

    /** Out of time, or out of memory (with or without the arguments' state after it): a resource, not behaviour. */
    static boolean exhausted(String outcome) {
        return outcome.equals("t") || head(outcome).equals("x:java.lang.OutOfMemoryError");
    }

    /** The outcome without the arguments' state. */
    static String head(String outcome) {
        int cut = outcome.indexOf('\n');
        return cut < 0 ? outcome : outcome.substring(0, cut);
    }

    private static final Map<String, ClassLoader> LOADERS = new HashMap<>();  // one per class folder

    private static ClassLoader loader(String classes) {
        try {
            return new URLClassLoader(new URL[] {new File(classes).toURI().toURL()}, Harness.class.getClassLoader());
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** One method of a compiled class, called on a fresh instance when it is not static. */
    static final class Target {
        final Method method;
        final Constructor<?> constructor;

        Target(Class<?> cls, String name, Class<?>[] types) throws Exception {
            method = cls.getDeclaredMethod(name, types);
            method.setAccessible(true);
            if (Modifier.isStatic(method.getModifiers())) {
                constructor = null;
            } else {
                constructor = cls.getDeclaredConstructor();
                constructor.setAccessible(true);
            }
        }

        /**
         * The outcome as a canonical string: r:VALUE, x:EXCEPTION-CLASS or e:EXIT-STATUS, followed, when the
         * method takes arrays (its only mutable arguments: strings and boxed values are immutable), by a
         * newline and s:[STATE]: the canonical text of every array argument after the call, returned or thrown.
         */
        String outcome(List<Object> input, Class<?>[] types, int cap) {
            Object result;
            Object[] args = new Object[types.length];
            String head;
            try {
                for (int k = 0; k < types.length; k++) args[k] = value(input.get(k), types[k]);  // fresh: the other side may have mutated them
                Object self = constructor == null ? null : constructor.newInstance();
                result = method.invoke(self, args);
                String text;
                try {
                    text = canonical(result);
                } catch (OutOfMemoryError e) {  // a result too big to print is still an outcome, the same for both
                    return "x:" + e.getClass().getName();
                }
                head = capped("r:", text, cap);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Guard.Exit) return "e:" + ((Guard.Exit) cause).status;
                head = "x:" + cause.getClass().getName();
            } catch (ReflectiveOperationException e) {
                return "x:" + e.getClass().getName();
            }
            boolean mutable = false;
            StringBuilder state = new StringBuilder("[");
            for (int k = 0; k < types.length; k++) {
                if (!types[k].isArray()) continue;
                if (mutable) state.append(',');
                mutable = true;
                try {
                    canonical(args[k], state);
                } catch (OutOfMemoryError e) {
                    return head;
                }
            }
            return mutable ? head + "\n" + capped("s:", state.append(']').toString(), cap) : head;
        }
    }

    static String capped(String tag, String text, int cap) {
        return text.length() <= cap ? tag + text : tag + "h:" + sha256(text) + ":" + text.length();
    }

    // -- suites --------------------------------------------------------------------------------------
    private static void suite(Worker worker, Map<String, Object> unit, int id, long deadline) throws Exception {
        Class<?> cls;
        try {
            cls = Class.forName((String) unit.get("test_class"), false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            emit(Map.of("u", id, "compiled", false, "errors", "cannot load the suite: " + e));
            return;
        }
        emit(Map.of("u", id, "compiled", true));
        Map<String, Object> where = Map.of("u", id, "abandoned", true);
        Map<String, String> tests = worker.run(() -> Suites.run(cls), deadline, null, where);
        if (tests == null) emit(Map.of("u", id, "timeout", true));
        else emit(Map.of("u", id, "tests", tests));
    }

    // -- running under a deadline ------------------------------------------------------------------------
    /**
     * Thread.stop can land while the stopped thread initialises a JDK class, which then fails for the rest
     * of this JVM ("Could not initialize class ..."). Once a call has been stopped, such a failure (in the
     * code under test or in ours) ends the JVM without a verdict for the item, and a fresh JVM runs it again.
     * Only a stop during an earlier item counts, so an item that poisons a class itself keeps its outcome.
     */
    static final class Restart extends RuntimeException {
    }

    static boolean poisoned(String outcome) {
        String h = head(outcome);
        return h.equals("x:java.lang.NoClassDefFoundError") || h.equals("x:java.lang.ExceptionInInitializerError");
    }

    static final class Abandoned extends RuntimeException {
        final Map<String, Object> where;

        Abandoned(Map<String, Object> where) {
            this.where = where;
        }
    }

    /** One worker thread at a time; the Guard watches it and the threads it starts. */
    static final class Worker {
        private ExecutorService pool;
        private volatile Thread thread;
        static volatile int stops;  // calls stopped in this JVM: see Restart

        Worker() {
            fresh();
        }

        private void fresh() {
            pool = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(null, () -> {
                    Guard.enter();
                    r.run();
                }, "codewalk-worker", 64L << 20);
                t.setDaemon(true);
                thread = t;
                return t;
            });
        }

        String call(Target target, List<Object> input, Class<?>[] types, long ms, int cap, Map<String, Object> where)
                throws Exception {
            return run(() -> target.outcome(input, types, cap), ms, "t", where);
        }

        <T> T run(Callable<T> task, long ms, T onTimeout, Map<String, Object> where) throws Exception {
            Future<T> future = pool.submit(task);
            try {
                return future.get(ms, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                kill(where);
                return onTimeout;
            } catch (ExecutionException e) {
                if (stops > 0 && e.getCause() instanceof LinkageError) throw new Restart();
                throw new IllegalStateException("harness failure: " + e.getCause(), e.getCause());
            }
        }

        @SuppressWarnings({"deprecation", "removal"})
        private void kill(Map<String, Object> where) throws InterruptedException {
            Thread t = thread;
            pool.shutdownNow();
            stops++;
            t.stop();
            t.join(2000);
            if (t.isAlive()) throw new Abandoned(where);
            fresh();
        }
    }

    // -- values in and out -----------------------------------------------------------------------------
    private static final Map<String, Class<?>> NAMED = Map.ofEntries(
            Map.entry("boolean", boolean.class), Map.entry("byte", byte.class), Map.entry("short", short.class),
            Map.entry("int", int.class), Map.entry("long", long.class), Map.entry("float", float.class),
            Map.entry("double", double.class), Map.entry("char", char.class),
            Map.entry("Boolean", Boolean.class), Map.entry("Byte", Byte.class), Map.entry("Short", Short.class),
            Map.entry("Integer", Integer.class), Map.entry("Long", Long.class), Map.entry("Float", Float.class),
            Map.entry("Double", Double.class), Map.entry("Character", Character.class),
            Map.entry("String", String.class));

    static Class<?> type(String name) {
        if (name.endsWith("[]")) return type(name.substring(0, name.length() - 2)).arrayType();
        if (name.endsWith("...")) return type(name.substring(0, name.length() - 3)).arrayType();
        Class<?> c = NAMED.get(name);
        if (c == null) throw new IllegalArgumentException("unsupported type " + name);
        return c;
    }

    /** A JSON value as a Java value of type t. Doubles and floats that JSON cannot hold come as strings. */
    static Object value(Object v, Class<?> t) {
        if (v == null) {
            if (t.isPrimitive()) throw new IllegalArgumentException("null for " + t);
            return null;
        }
        if (t.isArray()) {
            List<?> list = (List<?>) v;
            Object array = Array.newInstance(t.getComponentType(), list.size());
            for (int k = 0; k < list.size(); k++) Array.set(array, k, value(list.get(k), t.getComponentType()));
            return array;
        }
        if (t == String.class) return (String) v;
        if (t == boolean.class || t == Boolean.class) return (Boolean) v;
        if (t == char.class || t == Character.class) return ((String) v).charAt(0);
        if (t == double.class || t == Double.class)
            return v instanceof String ? Double.parseDouble((String) v) : ((BigDecimal) v).doubleValue();
        if (t == float.class || t == Float.class)
            return v instanceof String ? Float.parseFloat((String) v) : ((BigDecimal) v).floatValue();
        BigDecimal n = (BigDecimal) v;
        if (t == int.class || t == Integer.class) return n.intValueExact();
        if (t == long.class || t == Long.class) return n.longValueExact();
        if (t == short.class || t == Short.class) return n.shortValueExact();
        if (t == byte.class || t == Byte.class) return n.byteValueExact();
        throw new IllegalArgumentException("unsupported type " + t);
    }

    /** A canonical JSON text of a result: equal values give equal texts, arrays deeply. */
    static String canonical(Object v) {
        StringBuilder sb = new StringBuilder();
        canonical(v, sb);
        return sb.toString();
    }

    private static void canonical(Object v, StringBuilder sb) {
        if (v == null) sb.append("null");
        else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            String s = v.toString();  // shortest text that reads back to the same float/double, -0.0 kept
            sb.append(Double.isNaN(d) || Double.isInfinite(d) ? Json.quote(s) : s);
        } else if (v instanceof Number || v instanceof Boolean) sb.append(v);
        else if (v instanceof Character || v instanceof String) sb.append(Json.quote(v.toString()));
        else if (v.getClass().isArray()) {
            sb.append('[');
            for (int k = 0; k < Array.getLength(v); k++) {
                if (k > 0) sb.append(',');
                canonical(Array.get(v, k), sb);
            }
            sb.append(']');
        } else sb.append(Json.quote(v.getClass().getName() + ":" + v));
    }

    private static String sha256(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder();
            for (byte b : d) sb.append(String.format("%02x", b));
            return sb.toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static BigDecimal number(Object v) {
        return (BigDecimal) v;
    }

    static void emit(Map<String, Object> line) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : line.entrySet()) {
            if (sb.length() > 1) sb.append(',');
            sb.append(Json.quote(e.getKey())).append(':').append(encode(e.getValue()));
        }
        out.println(sb.append('}'));
    }

    private static String encode(Object v) {
        if (v instanceof String) return Json.quote((String) v);
        if (v instanceof List) {
            StringBuilder sb = new StringBuilder("[");
            for (Object e : (List<?>) v) sb.append(sb.length() > 1 ? "," : "").append(encode(e));
            return sb.append(']').toString();
        }
        if (v instanceof Map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet())
                sb.append(sb.length() > 1 ? "," : "").append(Json.quote((String) e.getKey())).append(':')
                        .append(encode(e.getValue()));
            return sb.append('}').toString();
        }
        return String.valueOf(v);
    }

    // -- compiling -------------------------------------------------------------------------------------
    /**
     * javac in this JVM. Units name a source folder, shared by many units (every FEMPD pair of a batch, say):
     * the folder is compiled once, in one javac task; files with errors are left out and the rest compiled
     * again, so one bad file cannot fail the others. The outcome per file is stamped in the unit's stamp
     * file (JSON: file -> errors, empty when all compiled), so a later JVM does not compile it again.
     */
    static final class Compiler {
        private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        private final StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        private final Map<String, Map<String, Object>> done = new HashMap<>();
        private final String classpath;
        private final String release;

        Compiler(String classpath, String release) {
            this.classpath = classpath;
            this.release = release;
        }

        /** null when every file the unit needs compiled, else their errors. */
        @SuppressWarnings("unchecked")
        String errors(Map<String, Object> unit) throws Exception {
            String stamp = (String) unit.get("stamp");
            Map<String, Object> failed = done.get(stamp);
            if (failed == null) {
                Path path = Path.of(stamp);
                failed = Files.exists(path) ? (Map<String, Object>) Json.parse(Files.readString(path))
                        : compile(Path.of((String) unit.get("src")), Path.of((String) unit.get("classes")), path);
                done.put(stamp, failed);
            }
            StringBuilder errors = new StringBuilder();
            for (Object file : (List<Object>) unit.get("files"))
                if (failed.containsKey(file)) errors.append(failed.get(file));
            return errors.length() == 0 ? null : errors.toString();
        }

        private Map<String, Object> compile(Path src, Path classes, Path stamp) throws Exception {
            Files.createDirectories(classes);
            List<Path> sources;
            try (Stream<Path> walk = Files.walk(src)) {
                sources = new ArrayList<>(walk.filter(p -> p.toString().endsWith(".java")).sorted().toList());
            }
            String cp = classpath.isEmpty() ? classes.toString() : classes + File.pathSeparator + classpath;
            List<String> options = Arrays.asList("-d", classes.toString(), "--release", release, "-proc:none",
                    "-nowarn", "-Xlint:none", "-encoding", "UTF-8", "-cp", cp);
            Map<String, Object> failed = new LinkedHashMap<>();
            while (!sources.isEmpty()) {
                DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
                List<File> batch = sources.stream().map(Path::toFile).toList();
                if (javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(batch)).call())
                    break;
                Map<String, StringBuilder> found = new LinkedHashMap<>();
                for (var d : diagnostics.getDiagnostics()) {
                    if (d.getKind() != javax.tools.Diagnostic.Kind.ERROR) continue;
                    String file = d.getSource() == null ? "" : src.relativize(Path.of(d.getSource().toUri())).toString();
                    found.computeIfAbsent(file, f -> new StringBuilder()).append(file).append(':')
                            .append(d.getLineNumber()).append(": ").append(d.getMessage(null)).append('\n');
                }
                if (found.isEmpty() || found.containsKey("")) {  // nothing to leave out: every file fails
                    String all = found.isEmpty() ? "javac failed\n" : found.get("").toString();
                    for (Path p : sources) failed.put(src.relativize(p).toString(), all);
                    break;
                }
                found.forEach((file, text) -> failed.put(file, text.toString()));
                sources.removeIf(p -> found.containsKey(src.relativize(p).toString()));
            }
            Path tmp = Files.createTempFile(stamp.getParent(), ".stamp", ".tmp");
            StringBuilder json = new StringBuilder("{");
            failed.forEach((f, e) -> json.append(json.length() > 1 ? "," : "").append(Json.quote(f)).append(':')
                    .append(Json.quote((String) e)));
            Files.writeString(tmp, json.append('}'));
            Files.move(tmp, stamp, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return failed;
        }
    }
}
