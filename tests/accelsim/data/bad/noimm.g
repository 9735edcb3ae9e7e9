noimm.traceg
