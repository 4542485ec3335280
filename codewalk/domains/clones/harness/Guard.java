package codewalk.clones;

import java.io.FilePermission;
import java.net.SocketPermission;
import java.security.Permission;

/**
 * What the code under test may not do from a worker thread (or a thread it started): exit the JVM (turned into an
 * outcome), write or delete files, start processes, open sockets, replace this manager or the standard
 * streams. Everything else, and everything the harness does from its own threads, is allowed.
 */
@SuppressWarnings("removal")
final class Guard extends SecurityManager {
    /** Thrown in place of System.exit; the harness reports it as the outcome e:STATUS. */
    static final class Exit extends SecurityException {
        final int status;

        Exit(int status) {
            super("System.exit(" + status + ")");
            this.status = status;
        }
    }

    // Set in the worker thread; threads it starts inherit it. Reading it asks no permission (a thread group
    // walk would, and recurse into this manager).
    private static final InheritableThreadLocal<Boolean> SANDBOXED = new InheritableThreadLocal<>();

    /** Called first thing in a worker thread: from here on this thread is watched. */
    static void enter() {
        SANDBOXED.set(Boolean.TRUE);
    }

    private static boolean guarded() {
        return SANDBOXED.get() == Boolean.TRUE;
    }

    @Override
    public void checkExit(int status) {
        if (guarded()) throw new Exit(status);
    }

    @Override
    public void checkPermission(Permission p) {
        if (!guarded()) return;
        String name = p.getName();
        boolean denied = p instanceof SocketPermission
                || (p instanceof FilePermission && !p.getActions().equals("read"))
                || (p instanceof RuntimePermission
                    && (name.equals("setSecurityManager") || name.equals("setIO") || name.startsWith("exitVM")));
        if (denied) throw new SecurityException("not allowed in the clone harness: " + p);
    }

    @Override
    public void checkPermission(Permission p, Object context) {
        checkPermission(p);
    }
}
