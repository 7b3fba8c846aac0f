package io.ferry.transport.conformance;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs, at the start of the JUnit session and so before any test loads Netty's buffer classes,
 * a leak-detector factory whose detectors hand every leak report to {@link LeakDetectionExtension}.
 * Registered in {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener}.
 */
public final class LeakRecordingSession implements LauncherSessionListener {

    private static volatile boolean installed;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        install();
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation") // the non-deprecated overload delegates to this one
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
                ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval);
                detector.setLeakListener((type, records) -> LeakDetectionExtension.LEAKS.add(type + ": " + records));
                return detector;
            }
        });
        installed = true;
    }

    static boolean installed() {
        return installed;
    }
}
