package io.ferry.testsuite.netty;

import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Puts the transport a test failed over into its failure: Netty's tests loop over the combinations
 * themselves, so a report (and CI's log) would otherwise say only which test failed, not over which of
 * {@link FerryPermutations#SCHEMES}. Registered for every class of this module by JUnit's extension
 * auto-detection ({@code junit-platform.properties}); it names the scheme only for Netty's tests (this package),
 * and a skipped test stays skipped. A failure before the test made any bootstrap says so, not the scheme a
 * previous test ran over last.
 */
public final class NamesTheScheme implements TestExecutionExceptionHandler, BeforeTestExecutionCallback {

    private static final String NONE = "(none yet)";

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        FerryPermutations.current = NONE;
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        if (failure instanceof TestAbortedException
                || !context.getRequiredTestClass().getPackageName().equals(NamesTheScheme.class.getPackageName())) {
            // skipped, or not one of Netty's tests (FanInFromOneAddressTest names its own spec): the scheme
            // Netty's loop last ran over would be another test's
            throw failure;
        }
        String scheme = FerryPermutations.current;
        AssertionError named = new AssertionError((NONE.equals(scheme) ? "before any transport ran" : "over " + scheme)
                + ": " + failure, failure);
        throw named;
    }
}
