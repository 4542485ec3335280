package codewalk.clones;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/** Runs one JUnit 4 class (an EvoSuite suite under its own EvoRunner) and returns each test's outcome. */
final class Suites {
    private Suites() {
    }

    /** test name -> "pass", or "fail:" + the class of what failed it; a class-level failure is "(class)". */
    static Map<String, String> run(Class<?> suite) {
        Map<String, String> outcomes = new LinkedHashMap<>();
        JUnitCore core = new JUnitCore();
        core.addListener(new RunListener() {
            @Override
            public void testStarted(Description d) {
                outcomes.put(d.getMethodName(), "pass");
            }

            @Override
            public void testFailure(Failure f) {
                String name = f.getDescription().getMethodName();
                outcomes.put(name == null ? "(class)" : name, "fail:" + f.getException().getClass().getName());
            }

            @Override
            public void testAssumptionFailure(Failure f) {
                outcomes.put(f.getDescription().getMethodName(), "skipped");
            }
        });
        core.run(suite);
        return outcomes;
    }
}
