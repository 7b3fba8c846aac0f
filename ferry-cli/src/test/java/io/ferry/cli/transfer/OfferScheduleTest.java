package io.ferry.cli.transfer;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OfferScheduleTest {

    private static List<OutgoingFile> files(int count, long size) {
        List<OutgoingFile> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(new OutgoingFile(i, new SendPlan.Entry(Path.of("f" + i), "f" + i, size), Runnable::run));
        }
        return files;
    }

    private static int offerAll(OfferSchedule s) {
        int n = 0;
        while (s.nextOffer(0) != null) {
            n++;
        }
        return n;
    }

    @Test
    void smallFilesAreOfferedAheadOfThoseStreamingUpToTheLimit() {
        List<OutgoingFile> files = files(200, 1024);
        OfferSchedule s = new OfferSchedule(files, 4);
        assertEquals(4 + OfferSchedule.OFFER_AHEAD, offerAll(s));
        assertEquals(OutgoingFile.State.OFFERED, files.get(0).state);
        assertEquals(OutgoingFile.State.WAITING, files.get(4 + OfferSchedule.OFFER_AHEAD).state);
        assertTrue(s.released(files.get(0), OutgoingFile.State.OFFERED)); // refused by the receiver
        assertSame(files.get(4 + OfferSchedule.OFFER_AHEAD), s.nextOffer(0), "its place goes to the next file");
        assertNull(s.nextOffer(0));
    }

    @Test
    void largeFilesWaitingToStreamStopTheOffersAtTheByteLimit() {
        long size = 40L << 20;
        List<OutgoingFile> files = files(10, size);
        OfferSchedule s = new OfferSchedule(files, 2);
        assertEquals(2, offerAll(s), "the files for the two slots; a third waiting would pass 64 MiB");
        s.ready(files.get(0));
        s.ready(files.get(1));
        assertSame(files.get(0), s.nextToStream());
        assertSame(files.get(1), s.nextToStream());
        assertSame(files.get(2), s.nextOffer(0), "what streams no longer counts: one file is offered ahead");
        assertNull(s.nextOffer(0), "two waiting would pass 64 MiB");
        s.ready(files.get(2));
        assertNull(s.nextToStream(), "both slots are taken");
    }

    @Test
    void filesStreamInTheOrderTheyBecameReadyAndAbortedOnesAreSkipped() {
        List<OutgoingFile> files = files(5, 100);
        OfferSchedule s = new OfferSchedule(files, 1);
        offerAll(s);
        s.ready(files.get(2));
        s.ready(files.get(0));
        s.ready(files.get(1));
        files.get(2).state = OutgoingFile.State.ENDED; // aborted while it waited
        assertSame(files.get(0), s.nextToStream());
        assertEquals(OutgoingFile.State.STREAMING, files.get(0).state);
        assertNull(s.nextToStream());
        assertTrue(s.released(files.get(0), OutgoingFile.State.STREAMING));
        assertSame(files.get(1), s.nextToStream());
    }

    @Test
    void aFileThatHeldNoPlaceGivesNoneBack() {
        List<OutgoingFile> files = files(3, 100);
        OfferSchedule s = new OfferSchedule(files, 1);
        assertFalse(s.released(files.get(2), OutgoingFile.State.WAITING));
        assertFalse(s.released(files.get(2), OutgoingFile.State.DONE));
        assertEquals(3, offerAll(s));
    }
}
