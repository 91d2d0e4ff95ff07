// A condition, included in the WHERE of recall's statements after `AND`: memory m is one recall may see.
// Of $types and of $tiers when given; live (valid_to unset) unless $include_history; or, given $as_of,
// valid at that instant (superseded or not).
($types IS NULL OR m.type IN $types)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
           ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
