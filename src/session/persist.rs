//! Persistence acknowledgement (chapter 8.7): which records storage really holds.
//!
//! A record the session writes is *accepted* as soon as it is in memory. The host is asked to
//! store it (a `persist` effect with a ticket) and answers with an outcome: *committed* (stored),
//! *not committed* (the write failed; safe to retry) or *indeterminate* (the reply was lost; it
//! may or may not be stored). Storage appends in `seq` order, skips what it already holds and
//! refuses a gap, so "ticket T committed" means every record up to T's last is stored: the
//! session's claim is a single number, `committedThrough`, and it never exceeds what storage
//! has. What is not committed is sent again with the next batch; `reconcile` settles the
//! indeterminate by reading what storage holds.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the host says became of a persist ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum PersistOutcome {
    Committed,
    NotCommitted,
    Indeterminate,
}

/// Where a record above `committedThrough` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum RecordState {
    /// In memory, not yet handed to the host.
    Accepted,
    /// Handed to the host under a ticket that has no outcome yet.
    InFlight,
    /// The write failed; it goes out again with the next batch.
    NotCommitted,
    /// The outcome was lost; it goes out again (storage skips what it holds) or `reconcile` settles it.
    Indeterminate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PendingRecord {
    pub seq: u64,
    pub state: RecordState,
}

/// The session's persistence as the host can inspect it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PersistenceStatus {
    /// Every record with `seq` up to this is stored (0: none).
    pub committed_through: u64,
    pub header_committed: bool,
    /// Records above `committedThrough`, in order.
    pub pending: Vec<PendingRecord>,
    /// Tickets handed out and not yet answered.
    pub in_flight: Vec<u64>,
}

/// Why an acknowledgement was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AckError {
    /// No persist effect ever carried this ticket.
    UnknownTicket(u64),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
struct Ticket {
    seqs: Vec<u64>,
    header: bool,
}

/// The serialized form (JSON object keys are strings, so the maps become lists).
#[derive(Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
struct PersistenceData {
    committed_through: u64,
    header_committed: bool,
    pending: Vec<PendingRecord>,
    tickets: Vec<(u64, Ticket)>,
    next_ticket: u64,
}

impl From<PersistenceData> for Persistence {
    fn from(d: PersistenceData) -> Persistence {
        Persistence {
            committed_through: d.committed_through,
            header_committed: d.header_committed,
            pending: d.pending.into_iter().map(|p| (p.seq, p.state)).collect(),
            tickets: d.tickets.into_iter().collect(),
            next_ticket: d.next_ticket,
        }
    }
}

impl From<Persistence> for PersistenceData {
    fn from(p: Persistence) -> PersistenceData {
        PersistenceData {
            committed_through: p.committed_through,
            header_committed: p.header_committed,
            pending: p.pending.into_iter().map(|(seq, state)| PendingRecord { seq, state }).collect(),
            tickets: p.tickets.into_iter().collect(),
            next_ticket: p.next_ticket,
        }
    }
}

/// The bookkeeping: a number for what is stored, a state for each record above it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "PersistenceData", into = "PersistenceData")]
pub struct Persistence {
    committed_through: u64,
    header_committed: bool,
    pending: BTreeMap<u64, RecordState>,
    tickets: BTreeMap<u64, Ticket>,
    next_ticket: u64,
}

impl Persistence {
    /// Everything up to `seq` (and the header, when `header`) is already stored.
    pub fn stored(committed_through: u64, header: bool) -> Persistence {
        Persistence { committed_through, header_committed: header, next_ticket: 1, ..Persistence::default() }
    }

    pub fn committed_through(&self) -> u64 {
        self.committed_through
    }

    pub fn header_committed(&self) -> bool {
        self.header_committed
    }

    /// A record just accepted in memory.
    pub fn accept(&mut self, seq: u64) {
        if seq > self.committed_through {
            self.pending.insert(seq, RecordState::Accepted);
        }
    }

    /// A record the host supplied (read from its storage, or stored by itself): stored, unless
    /// records of the session's own before it are not, in which case it waits with them.
    pub fn adopt(&mut self, seq: u64) {
        if self.pending.is_empty() {
            self.committed_through = self.committed_through.max(seq);
        } else {
            self.pending.insert(seq, RecordState::Accepted);
        }
    }

    /// Hands every record that is not stored and not in flight to a new ticket: `(ticket, seqs,
    /// header)`, or `None` when there is nothing to send.
    pub fn next_batch(&mut self) -> Option<(u64, Vec<u64>, bool)> {
        let seqs: Vec<u64> = self.pending.iter().filter(|(_, s)| **s != RecordState::InFlight).map(|(&seq, _)| seq).collect();
        // The header goes with every batch until it is stored (storage skips it once held).
        let header = !self.header_committed;
        if seqs.is_empty() && (!header || self.tickets.values().any(|t| t.header)) {
            return None;
        }
        let ticket = self.next_ticket.max(1);
        self.next_ticket = ticket + 1;
        for seq in &seqs {
            self.pending.insert(*seq, RecordState::InFlight);
        }
        self.tickets.insert(ticket, Ticket { seqs: seqs.clone(), header });
        Some((ticket, seqs, header))
    }

    /// Applies an outcome; `Ok(false)` when the ticket was answered before (nothing changes).
    pub fn ack(&mut self, ticket: u64, outcome: PersistOutcome) -> Result<bool, AckError> {
        if ticket == 0 || ticket >= self.next_ticket.max(1) {
            return Err(AckError::UnknownTicket(ticket));
        }
        let Some(t) = self.tickets.remove(&ticket) else { return Ok(false) };
        match outcome {
            PersistOutcome::Committed => {
                // Storage refuses gaps: the ticket's last record stored means all before it are.
                if let Some(&last) = t.seqs.last() {
                    self.commit_through(last);
                }
                self.header_committed |= t.header;
            }
            PersistOutcome::NotCommitted | PersistOutcome::Indeterminate => {
                let state = if outcome == PersistOutcome::NotCommitted { RecordState::NotCommitted } else { RecordState::Indeterminate };
                for seq in t.seqs {
                    if let Some(s) = self.pending.get_mut(&seq) {
                        if *s == RecordState::InFlight {
                            *s = state;
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    fn commit_through(&mut self, seq: u64) {
        if seq > self.committed_through {
            self.committed_through = seq;
            self.pending = self.pending.split_off(&seq.saturating_add(1));
        }
        self.header_committed = true;
    }

    /// After reading storage: it holds the header (when `header`) and records up to `stored`;
    /// every record above that is to be sent again. Tickets in flight are forgotten (their
    /// late answers are ignored).
    pub fn reconciled(&mut self, stored: u64, header: bool, unstored: impl IntoIterator<Item = u64>) {
        self.committed_through = stored;
        self.header_committed = header;
        self.pending = unstored.into_iter().map(|seq| (seq, RecordState::NotCommitted)).collect();
        self.tickets.clear();
    }

    /// This bookkeeping, taken from a snapshot into a new process: its tickets will never be
    /// answered, so what was in flight is indeterminate (sent again; storage skips what it
    /// holds), and tickets are numbered after both the snapshot's and the session's so a late
    /// answer can never settle another batch. `None` when it claims records the log lacks.
    pub fn restored(&self, last_seq: u64, next_ticket: u64) -> Option<Persistence> {
        if self.committed_through > last_seq || self.pending.keys().any(|&s| s > last_seq) {
            return None;
        }
        let pending = self
            .pending
            .iter()
            .map(|(&seq, &state)| (seq, if state == RecordState::InFlight { RecordState::Indeterminate } else { state }))
            .collect();
        Some(Persistence {
            committed_through: self.committed_through,
            header_committed: self.header_committed,
            pending,
            tickets: BTreeMap::new(),
            next_ticket: self.next_ticket.max(next_ticket).max(1),
        })
    }

    pub fn next_ticket(&self) -> u64 {
        self.next_ticket
    }

    pub fn status(&self) -> PersistenceStatus {
        PersistenceStatus {
            committed_through: self.committed_through,
            header_committed: self.header_committed,
            pending: self.pending.iter().map(|(&seq, &state)| PendingRecord { seq, state }).collect(),
            in_flight: self.tickets.keys().copied().collect(),
        }
    }
}
