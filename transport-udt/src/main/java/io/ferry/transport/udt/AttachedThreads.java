package io.ferry.transport.udt;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * Makes UDT's native threads that barchart's JNI attached to the JVM detach again when they exit.
 *
 * <p>barchart-udt 2.3.0 calls a Java congestion control ({@link PacedCcc}) from UDT's own threads and
 * attaches them to the JVM for it, but never detaches them. A thread that ends attached stays in the
 * JVM's thread list as a non-daemon thread: the JVM then never exits by itself after {@code main}
 * returns, and a thread dump ({@code jstack}, {@code jcmd Thread.print}) crashes it when it asks the
 * dead thread for its CPU time. The JNI specification's remedy, which HotSpot supports explicitly, is a
 * {@code pthread} key whose destructor is the JVM's own {@code DetachCurrentThread}, with the
 * {@code JavaVM} pointer as the thread's value: every thread that has the value set detaches as it ends.
 * {@link #detachAtExit()} sets it on the calling thread; Ferry calls it from every Java method UDT's
 * threads run. (UDT's garbage-collector thread runs no Java method of Ferry's on its own; see
 * {@link UdtRuntime} for how it gets one.)
 */
final class AttachedThreads {

    private static final Pointer VM;
    private static final int KEY;
    private static final Throwable UNAVAILABLE;
    private static final ThreadLocal<Boolean> SET = ThreadLocal.withInitial(() -> Boolean.FALSE);

    static {
        Pointer vm = null;
        int key = -1;
        Throwable failure = null;
        try {
            Function created = NativeLibrary.getProcess().getFunction("JNI_GetCreatedJavaVMs");
            Memory vms = new Memory(Native.POINTER_SIZE);
            IntByReference count = new IntByReference();
            int rc = created.invokeInt(new Object[]{vms, 1, count});
            if (rc != 0 || count.getValue() < 1) {
                throw new IllegalStateException("JNI_GetCreatedJavaVMs returned " + rc + " with " + count.getValue() + " VMs");
            }
            vm = vms.getPointer(0);
            // struct JNIInvokeInterface_: reserved0..2, DestroyJavaVM, AttachCurrentThread, DetachCurrentThread, ...
            Pointer detach = vm.getPointer(0).getPointer(5L * Native.POINTER_SIZE);
            IntByReference k = new IntByReference();
            int created2 = Pthread.INSTANCE.pthread_key_create(k, detach);
            if (created2 != 0) {
                throw new IllegalStateException("pthread_key_create failed: " + created2);
            }
            key = k.getValue();
        } catch (Throwable t) {
            failure = t;
        }
        VM = vm;
        KEY = key;
        UNAVAILABLE = failure;
    }

    private AttachedThreads() {
    }

    /** Whether threads can be made to detach here (Linux and other POSIX systems with a HotSpot-like JVM). */
    static boolean available() {
        return UNAVAILABLE == null;
    }

    /** Why they cannot, or null. */
    static Throwable unavailableBecause() {
        return UNAVAILABLE;
    }

    /**
     * Makes the calling thread detach from the JVM when it ends. Harmless on a thread the JVM started:
     * by the time its keys' destructors run the JVM has already let it go, and detaching a thread that
     * is not attached does nothing.
     */
    static void detachAtExit() {
        if (UNAVAILABLE == null && !SET.get()) {
            Pthread.INSTANCE.pthread_setspecific(KEY, VM);
            SET.set(Boolean.TRUE);
        }
    }

    private interface Pthread extends Library {
        Pthread INSTANCE = Native.load("c", Pthread.class);

        int pthread_key_create(IntByReference key, Pointer destructor);

        int pthread_setspecific(int key, Pointer value);
    }
}
