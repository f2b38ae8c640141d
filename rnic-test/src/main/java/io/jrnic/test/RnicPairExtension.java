package io.jrnic.test;

import io.jrnic.api.Connection;
import io.jrnic.api.WorkCompletion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.SearchOption;

import java.lang.reflect.Parameter;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The JUnit Jupiter extension behind {@link RnicTest}: opens an {@link RnicPair} for a test,
 * injects it, and closes it afterwards. Register it with {@code @RnicTest} (which also carries the
 * settings) or with {@code @ExtendWith(RnicPairExtension.class)} (default settings).
 *
 * <h2>Parameters</h2>
 * <ul>
 *   <li>{@link RnicPair}: the pair;</li>
 *   <li>{@link Connection}: the first {@code Connection} parameter of a method is the active end's
 *       connection, the second the passive end's (a third is refused).</li>
 * </ul>
 * Test methods, {@code @BeforeEach} and {@code @AfterEach} methods and (with the default
 * per-method test instance lifecycle) the test class's constructor of one test all get the same
 * pair.
 *
 * <h2>Lifecycle</h2>
 * One pair per test method by default, opened when the first parameter needs it (a test that asks
 * for none opens nothing) and closed after the test's {@code @AfterEach} methods: both RNICs are
 * closed, which ends the connection, frees all their resources and memory, and waits for their
 * event-loop threads to terminate. A pair asked for by a {@code @BeforeAll} method is opened once
 * for the class, shared by its test methods, and closed after its {@code @AfterAll} methods. Test
 * methods may run in parallel: each has its own pair, and RNIC names and ports are unique.
 *
 * <p>When {@link RnicTest#requireReaped()} is on (the default), after a test that passed (and its
 * {@code @AfterEach} methods) both connections are closed gracefully, which leaves the completion
 * of every work request in its CQ, and the test fails if a completion other than a flushed receive
 * is left; a failed test is closed at once and reported with its own failure only. A class-wide
 * pair is checked once, after the class's {@code @AfterAll} methods (a failure then is the class's).
 *
 * <p>Thread safety: stateless; one instance serves parallel tests.
 */
public final class RnicPairExtension implements ParameterResolver, AfterEachCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RnicPairExtension.class);
    private static final String KEY = "pair";

    /** The settings when the extension is registered without {@link RnicTest}. */
    @RnicTest
    private static final class Defaults {
    }

    /** Creates the extension (JUnit does). */
    public RnicPairExtension() {
    }

    /**
     * Constructor parameters of a per-method test instance resolve in the test method's context, so
     * that they get the test's own pair rather than a class-wide one.
     */
    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        return ExtensionContextScope.TEST_METHOD;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RnicPair.class || type == Connection.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        RnicPair pair = pair(extensionContext);
        if (parameterContext.getParameter().getType() == RnicPair.class) {
            return pair;
        }
        int index = 0;
        Parameter[] parameters = parameterContext.getDeclaringExecutable().getParameters();
        for (int i = 0; i < parameterContext.getIndex(); i++) {
            if (parameters[i].getType() == Connection.class) {
                index++;
            }
        }
        return switch (index) {
            case 0 -> pair.active().connection();
            case 1 -> pair.passive().connection();
            default -> throw new ParameterResolutionException("an RnicPair has two connections: parameter "
                    + parameterContext.getIndex() + " of " + parameterContext.getDeclaringExecutable()
                    + " is a third Connection");
        };
    }

    /** The pair of this context or of an enclosing one (a class-wide pair), opened on first use. */
    private static RnicPair pair(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        // Store.get also looks in the enclosing contexts' stores: a class-wide pair wins
        RnicPair existing = store.get(KEY, RnicPair.class);
        if (existing != null) {
            return existing;
        }
        RnicPair opened;
        try {
            opened = RnicPair.open(settings(context));
        } catch (Exception e) {
            throw new ParameterResolutionException("opening the RNIC pair failed: " + e, e);
        }
        // the pair is closed by afterEach/afterAll; the store only holds it for this context
        store.put(KEY, opened);
        return opened;
    }

    /** The nearest {@link RnicTest}: the method's, else the class's (or an enclosing class's). */
    static RnicTest settings(ExtensionContext context) {
        Optional<RnicTest> onMethod = context.getTestMethod()
                .flatMap(m -> AnnotationSupport.findAnnotation(m, RnicTest.class));
        if (onMethod.isPresent()) {
            return onMethod.get();
        }
        return context.getTestClass()
                .flatMap(c -> AnnotationSupport.findAnnotation(c, RnicTest.class, SearchOption.INCLUDE_ENCLOSING_CLASSES))
                .orElseGet(() -> Defaults.class.getAnnotation(RnicTest.class));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        finish(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        finish(context);
    }

    /**
     * Checks and closes the pair this context opened; a class-wide pair is left to the class (its
     * check would end the connection the class's other tests use).
     */
    private static void finish(ExtensionContext context) {
        RnicPair owned = context.getStore(NAMESPACE).remove(KEY, RnicPair.class); // only this context's own
        if (owned == null) {
            return;
        }
        try {
            if (context.getExecutionException().isEmpty() && settings(context).requireReaped()) {
                List<WorkCompletion> left = owned.settle();
                if (!left.isEmpty()) {
                    fail("the test left " + left.size() + " completion(s) unreaped (reap them with await, "
                            + "discard them with drain(), or set @RnicTest(requireReaped = false)): " + left);
                }
            }
        } finally {
            owned.close();
        }
    }
}
