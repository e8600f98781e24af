package httpapi

import "slices"

// table is the API's table of contents: every route, once. Each area's
// routes are declared beside their handlers, in <area>Routes.
func (s *Server) table() []Route {
	return slices.Concat(
		s.metaRoutes(),          // SPEC §4.3: health, this document, /docs
		s.identityRoutes(),      // DECISIONS §2: sign-up, sign-in, sessions, houses
		s.keysRoutes(),          // SPEC §4.1: API keys
		s.mcpRoutes(),           // SPEC §4.2: the MCP endpoint
		s.socketRoutes(),        // SPEC §6: the job socket
		s.postsRoutes(),         // SPEC §4.16: the sample resource
		s.assetsRoutes(),        // SPEC §4.4: the library
		s.packsRoutes(),         // SPEC §3, §4.4, §4.19, §8: batch downloads
		s.notificationsRoutes(), // SPEC §4.14, §6: notifications
		s.foldersRoutes(),       // SPEC §4.19: collections
		s.billingRoutes(),       // SPEC §4.19, §4.17: balance, catalog, admin grant
		s.jobsRoutes(),          // SPEC §4.5: develops and runs
		s.judgeRoutes(),         // SPEC §4.7: verdicts, redraws, takes, standing notes
		s.looksRoutes(),         // SPEC §4.6, §4.19: lookbook, factory, presets, backgrounds, templates
		s.posturesRoutes(),      // SPEC §4.15: postures
		s.shareRoutes(),         // SPEC §4.11: share links, reviewer marks, coverage
		s.webhooksRoutes(),      // SPEC §4.14, §5 rules 9-10, §6: outbound webhook endpoints and their deliveries
		s.chatRoutes(),          // SPEC §4.12: the studio assistant
		s.memoryRoutes(),        // SPEC §4.13: the studio's memory
		s.supportRoutes(),       // SPEC §4.14: the help desk
		s.deskRoutes(),          // SPEC §4.17, issue 28: the desk's side of the help desk, for operators
		s.lettersRoutes(),       // SPEC §4.14, DECISIONS §10: drip letters, the e-mail provider's webhook
		s.modelsRoutes(),        // SPEC §4.10: the casting board and model checkout
		s.exploreRoutes(),       // SPEC §4.19: offerings (faces, packs, plans) and taking them
		s.accountRoutes(),       // SPEC §4.13, §2 Account: the account view and avatars
		s.seatsRoutes(),         // SPEC §1 roles, §4.13: seats and the house's transfer
		s.doorRoutes(),          // SPEC §4.13, §3: the door in: invitations, codes, applicants, previews
		s.meRoutes(),            // SPEC §4.19: a user's own data
		s.brandRoutes(),         // SPEC §4.8: brand profile, DNA reads, marks
		s.lanesRoutes(),         // SPEC §4.9: AI lanes and text tools
		s.adminRoutes(),         // SPEC §4.17: the operators' console
		s.applicantsRoutes(),    // SPEC §3, issue 28: the operators' applicant list and declines
		s.digestRoutes(),        // SPEC §4.17: the operators' analyst digest
		s.searchRoutes(),        // SPEC §4.19: the one field over the house
		s.onboardingRoutes(),    // SPEC §4.19: the first-steps checklist
		s.pipelinesRoutes(),     // SPEC §4.19: saved plans of tool steps, previews and runs
		s.accessRoutes(),        // SPEC §4.9: what a user may open, the tools' curated items
		s.analystRoutes(),       // SPEC §4.18, §5 rule 7: the internal analyst's aggregates and actions
	)
}
