package org.softalign;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link Thread#interrupt()} for a translation in native code, which never sees it: while a
 * call runs, its thread is registered here, and one daemon thread (started on the first call)
 * looks at the registered threads every 20 ms and cancels the translator of each one that is
 * interrupted, again at every look until the call is over (a cancel stops the calls running when
 * it is made). It sleeps while no call runs.
 */
final class InterruptWatch {
  private static final long PERIOD_MS = 20;
  private static final Map<Thread, Translator> RUNNING = new ConcurrentHashMap<>();
  private static final Object LOCK = new Object();
  private static Thread watcher;

  private InterruptWatch() {}

  static void enter(Translator translator) {
    RUNNING.put(Thread.currentThread(), translator);
    synchronized (LOCK) {
      if (watcher == null) {
        watcher = new Thread(InterruptWatch::watch, "softalign-interrupt-watch");
        watcher.setDaemon(true);
        watcher.start();
      }
      LOCK.notifyAll();
    }
  }

  static void exit() {
    RUNNING.remove(Thread.currentThread());
  }

  private static void watch() {
    while (true) {
      try {
        synchronized (LOCK) {
          while (RUNNING.isEmpty()) LOCK.wait();
        }
        Thread.sleep(PERIOD_MS);
      } catch (InterruptedException e) {
        return;
      }
      for (Map.Entry<Thread, Translator> call : RUNNING.entrySet()) {
        if (call.getKey().isInterrupted()) call.getValue().cancel();
      }
    }
  }
}
