package io.jrnic.core;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

/**
 * A JFR recording of jrnic's events for a test (docs/observability.md): started on creation with
 * every {@code io.jrnic.*} event enabled, stopped and read back from a dumped file by
 * {@link #stop()}. Public for the raw-socket tests of the transport package.
 */
public final class JfrCapture implements AutoCloseable {
    /** The events jrnic defines (JfrEvents). */
    public static final List<String> EVENTS = List.of("io.jrnic.QpStateChange", "io.jrnic.TerminateSent",
            "io.jrnic.TerminateReceived", "io.jrnic.ConnectionEstablished", "io.jrnic.ConnectionClosed",
            "io.jrnic.ConnectionSetupFailed", "io.jrnic.CrcError", "io.jrnic.ProgressTimeout");

    private final Recording recording = new Recording();
    private List<RecordedEvent> events;

    public JfrCapture() {
        for (String name : EVENTS) {
            recording.enable(name);
        }
        recording.start();
    }

    /** Stops the recording and returns its jrnic events in commit order (once; later calls return the same). */
    public List<RecordedEvent> stop() throws IOException {
        if (events == null) {
            recording.stop();
            Path file = Files.createTempFile("jrnic-", ".jfr");
            try {
                recording.dump(file);
                events = RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().startsWith("io.jrnic."))
                        .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime))
                        .toList();
            } finally {
                Files.deleteIfExists(file);
                recording.close();
            }
        }
        return events;
    }

    /** The recorded events of one type that match. */
    public List<RecordedEvent> events(String name, Predicate<RecordedEvent> filter) throws IOException {
        return stop().stream().filter(e -> e.getEventType().getName().equals(name)).filter(filter).toList();
    }

    @Override
    public void close() {
        recording.close();
    }
}
