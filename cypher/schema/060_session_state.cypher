// Session state shared by every worker (issue 8): one (:SessionRecall) per (tenant, user, session) holding
// what the session's last recalls surfaced (anti-repetition); unique, so concurrent first writes make one.
CREATE CONSTRAINT session_recall_id IF NOT EXISTS FOR (s:SessionRecall) REQUIRE s.id IS UNIQUE
