package httpapi

import (
	"studio/internal/account"
	"studio/internal/apikey"
	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/mcp"
	"studio/internal/notify"
	"studio/internal/pack"
	"studio/internal/post"
)

// table is the API's table of contents: every route, once.
func (s *Server) table() []Route {
	return []Route{
		// Meta (SPEC §4.3)
		{Method: "GET", Path: "/health", Class: Public, Tag: "meta", Summary: "Liveness",
			Out: []Out{{Status: 200, Body: Health{}}}, Errors: []*errs.Error{ErrUnhealthy}, Handler: s.health},
		{Method: "GET", Path: "/openapi.json", Class: KeyOrSession, Tag: "meta", Summary: "This OpenAPI 3.1 document",
			Out: []Out{{Status: 200, Body: map[string]any{}}}, Handler: s.openapiJSON},
		{Method: "GET", Path: "/docs", Class: KeyOrSession, Tag: "meta", Summary: "Interactive API reference (HTML)",
			Out: []Out{{Status: 200, ContentType: "text/html"}}, Handler: s.docsPage},

		// Identity (DECISIONS §2)
		{Method: "POST", Path: "/api/auth/sign-up/email", Class: Public, Tag: "auth", Summary: "Create an account, a personal house and a session",
			In: account.SignUpRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrWeakPassword, account.ErrBadEmail, account.ErrRegistered, account.ErrInviteNeeded}, Handler: s.signUp},
		{Method: "POST", Path: "/api/auth/sign-in/email", Class: Public, Tag: "auth", Summary: "Sign in with e-mail and password",
			In: account.SignInRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrInvalidCreds, errs.RateLimited}, Handler: s.signIn},
		{Method: "POST", Path: "/api/auth/sign-out", Class: SessionOnly, Tag: "auth", Summary: "End the session",
			Out: []Out{{Status: 200, Body: Success{}}}, Handler: s.signOut},
		{Method: "GET", Path: "/api/auth/get-session", Class: SessionOnly, Tag: "auth", Summary: "The current session and user",
			Out: []Out{{Status: 200, Body: account.SessionView{}}}, Handler: s.getSession},
		{Method: "GET", Path: "/api/auth/organization/list", Class: SessionOnly, Tag: "auth", Summary: "Houses where the user holds a seat",
			Out: []Out{{Status: 200, Body: HousesBody{}}}, Handler: s.listHouses},
		{Method: "POST", Path: "/api/auth/organization/set-active", Class: SessionOnly, Tag: "auth", Summary: "Switch the session's active house",
			In: account.SetActiveRequest{}, Out: []Out{{Status: 200, Body: ActiveBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.setActive},
		{Method: "GET", Path: "/api/auth/verify-email", Class: Public, Tag: "auth", Summary: "Confirm an e-mail address",
			Query: VerifyQuery{}, Out: []Out{{Status: 200, Body: VerifiedBody{}}}, Errors: []*errs.Error{account.ErrBadToken}, Handler: s.verifyEmail},

		// API keys (SPEC §4.1)
		{Method: "GET", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "List the house's API keys",
			Out: []Out{{Status: 200, Body: KeysBody{}}}, Handler: s.listKeys},
		{Method: "POST", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "Mint an API key",
			In: apikey.MintRequest{}, Out: []Out{{Status: 201, Body: apikey.Minted{}}},
			Errors: []*errs.Error{errs.Forbidden, apikey.ErrBadRole}, Handler: s.mintKey},
		{Method: "DELETE", Path: "/api/keys/{id}", Class: SessionOnly, Tag: "keys", Summary: "Revoke an API key",
			Out: []Out{{Status: 200, Body: RevokedBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.revokeKey},

		// MCP (SPEC §4.2): initialize and ping are public; the handler asks every other method for a key or session (mcp.go).
		{Method: "POST", Path: "/api/mcp", Class: Public, Tag: "mcp", Summary: mcpSummary,
			Out:    []Out{{Status: 200, Body: mcp.Response{}}, {Status: 202}},
			Errors: []*errs.Error{ErrBadProtocolVersion, errs.Unauthorized, ErrBadOrigin, errs.BodyTooLarge}, Handler: s.mcpEndpoint()},

		// Job events (SPEC §6)
		{Method: "GET", Path: "/api/toolkit/jobs/ws", Class: KeyOrSession, Tag: "jobs", Summary: socketSummary,
			Out: []Out{{Status: 101}}, Errors: []*errs.Error{ErrUpgradeRequired, ErrBadOrigin}, Handler: s.jobSocket},

		// Posts (SPEC §4.16)
		{Method: "GET", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "List the house's posts",
			Out: []Out{{Status: 200, Body: []post.Post{}}}, Handler: s.listPosts},
		{Method: "POST", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "Write a post",
			In: post.CreateRequest{}, Out: []Out{{Status: 201, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.createPost},
		{Method: "GET", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "One post",
			Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPost},
		{Method: "PATCH", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Change a post (author only)",
			In: post.UpdateRequest{}, Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.updatePost},
		{Method: "DELETE", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Delete a post (author only)",
			Out: []Out{{Status: 204}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.deletePost},

		// Assets (SPEC §4.4; POST /api/toolkit/assets/pack is with packs below)
		{Method: "GET", Path: "/api/toolkit/assets", Class: KeyOrSession, Tag: "assets", Summary: "List the library, newest first",
			Query: AssetsQuery{}, Out: []Out{{Status: 200, Body: AssetsBody{}}}, Handler: s.listAssets},
		{Method: "POST", Path: "/api/toolkit/assets/upload", Class: KeyOrSession, Tag: "assets", Summary: "Upload an image as an asset (classify=1 reads kind and name for one token)",
			In: Multipart{Form: UploadForm{}}, Out: []Out{{Status: 201, Body: AssetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrNoImage, asset.ErrEmptyImage, asset.ErrTooLarge, asset.ErrBadKind, asset.ErrBadSKU,
				errs.NotFound, ledger.ErrInsufficientTokens}, Handler: s.uploadAsset},
		{Method: "PATCH", Path: "/api/toolkit/assets/batch", Class: KeyOrSession, Tag: "assets", Summary: "Move, file or approve many assets; other houses' and removed ids are skipped",
			In: asset.BatchRequest{}, Out: []Out{{Status: 200, Body: UpdatedBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadKind, errs.NotFound}, Handler: s.batchPatchAssets},
		{Method: "POST", Path: "/api/toolkit/assets/batch/delete", Class: KeyOrSession, Tag: "assets", Summary: "Remove many assets (soft delete)",
			In: asset.IDsRequest{}, Out: []Out{{Status: 200, Body: DeletedBody{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.batchDeleteAssets},
		{Method: "POST", Path: "/api/toolkit/assets/batch/quote", Class: KeyOrSession, Tag: "assets", Summary: "Price an operation over many assets; spends and reserves nothing",
			In: asset.QuoteRequest{}, Out: []Out{{Status: 200, Body: asset.Quote{}}}, Handler: s.quoteAssets},
		{Method: "POST", Path: "/api/toolkit/assets/group", Class: KeyOrSession, Tag: "assets", Summary: "Group assets, replacing their prior groups; all or nothing",
			In: asset.GroupRequest{}, Out: []Out{{Status: 201, Body: GroupBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadAssetIDs, errs.NotFound}, Handler: s.groupAssets},
		{Method: "GET", Path: "/api/toolkit/assets/{id}", Class: KeyOrSession, Tag: "assets", Summary: "An asset's bytes (legacy route: 403 for another house's asset)",
			Out: fileOut(), Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.legacyAssetFile},
		{Method: "GET", Path: "/api/toolkit/assets/{id}/file", Class: KeyOrSession, Tag: "assets", Summary: "An asset's bytes, cacheable (ETag, If-None-Match, ranges)",
			Out: fileOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.assetFile},
		{Method: "PATCH", Path: "/api/toolkit/assets/{id}", Class: KeyOrSession, Tag: "assets", Summary: "Rename, file or move an asset; an empty patch changes nothing",
			In: asset.PatchRequest{}, Out: []Out{{Status: 200, Body: AssetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadKind, asset.ErrBadSKU, asset.ErrBadFolder, errs.NotFound}, Handler: s.patchAsset},

		// Packs (SPEC §3, §4.4, §4.19, §8)
		{Method: "POST", Path: "/api/toolkit/assets/pack", Class: KeyOrSession, Tag: "packs", Summary: packsSummary,
			In: pack.Request{}, Out: []Out{{Status: 200, Body: pack.Created{}}, {Status: 202, Body: pack.Created{}}},
			Errors: []*errs.Error{errs.NotFound, pack.ErrTooLarge}, Handler: s.createPack},
		{Method: "GET", Path: "/api/toolkit/packs/{id}", Class: KeyOrSession, Tag: "packs", Summary: "Where a pack got to; 404 after 7 days",
			Out: []Out{{Status: 200, Body: pack.View{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPack},
		{Method: "GET", Path: "/api/toolkit/packs/{id}/file", Class: KeyOrSession, Tag: "packs", Summary: "The pack's zip archive; 409 NOT_READY until it is built, 404 after 7 days",
			Out:    []Out{{Status: 200, ContentType: "application/zip"}, {Status: 206, ContentType: "application/zip"}, {Status: 304}},
			Errors: []*errs.Error{pack.ErrNotReady, errs.NotFound}, Handler: s.packFile},

		// Notifications (SPEC §4.14, §6, DECISIONS §1b and §8)
		{Method: "GET", Path: "/api/notifications", Class: KeyOrSession, Tag: "notifications", Summary: "The caller's notifications, newest first, or a backfill since an eventSeq",
			Query: NotificationsQuery{}, Out: []Out{{Status: 200, Body: notify.Page{}}},
			Errors: []*errs.Error{errBadNotifySince, notify.ErrBadCursor, errBadNotifyLimit}, Handler: s.listNotifications},
		{Method: "POST", Path: "/api/notifications/read", Class: KeyOrSession, Tag: "notifications", Summary: "Mark notifications read; idempotent, nothing deleted",
			In: notify.ReadRequest{}, Out: []Out{{Status: 200, Body: notify.Marked{}}}, Handler: s.readNotifications},

		// Collections (SPEC §4.19, DECISIONS §1b)
		{Method: "GET", Path: "/api/toolkit/folders", Class: KeyOrSession, Tag: "collections", Summary: "List the house's collections, flat",
			Out: []Out{{Status: 200, Body: FoldersBody{}}}, Handler: s.listFolders},
		{Method: "POST", Path: "/api/toolkit/folders", Class: KeyOrSession, Tag: "collections", Summary: "Make a collection",
			In: asset.CreateFolderRequest{}, Out: []Out{{Status: 201, Body: FolderBody{}}},
			Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.createFolder},
		{Method: "PATCH", Path: "/api/toolkit/folders/{id}", Class: KeyOrSession, Tag: "collections", Summary: "Rename or move a collection",
			In: asset.UpdateFolderRequest{}, Out: []Out{{Status: 200, Body: FolderBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrFolderCycle, errs.NotFound}, Handler: s.updateFolder},

		// Billing (SPEC §4.19, DECISIONS §1b and §4) and the admin grant (SPEC §4.17)
		{Method: "GET", Path: "/api/toolkit/ai/billing/balance", Class: KeyOrSession, Tag: "billing", Summary: "The house's token balance and open holds",
			Out: []Out{{Status: 200, Body: ledger.Balance{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.balance},
		{Method: "GET", Path: "/api/toolkit/ai/billing/catalog", Class: KeyOrSession, Tag: "billing", Summary: "The live price list: tools by tier, flat lanes, text tools, plans and top-up packs",
			Out: []Out{{Status: 200, Body: ledger.Catalog{}}}, Handler: s.catalog},
		{Method: "POST", Path: "/api/toolkit/admin/grant-tokens", Class: PlatformAdmin, Tag: "admin", Summary: "Grant tokens to the personal house of a user",
			In: ledger.GrantRequest{}, Out: []Out{{Status: 200, Body: ledger.Granted{}}},
			Errors: []*errs.Error{ledger.ErrUserRequired, ledger.ErrBadTokens, ledger.ErrUserNotFound}, Handler: s.grantTokens},

		// Jobs and runs (SPEC §4.5)
		{Method: "POST", Path: "/api/toolkit/jobs/submit", Class: KeyOrSession, Tag: "jobs", Summary: "Submit a develop",
			In: Multipart{Form: SubmitForm{}}, Out: []Out{{Status: 202, Body: Submitted{}}},
			Errors: []*errs.Error{ledger.ErrInsufficientTokens, errs.Forbidden, job.ErrUnknownTool, job.ErrNoImage, job.ErrEmptyImage, job.ErrBadQuality,
				asset.ErrTooLarge, job.ErrKeyReused, job.ErrFalNotConfigure, job.ErrSubmitFailed}, Handler: s.submitJob},
		{Method: "GET", Path: "/api/toolkit/jobs", Class: KeyOrSession, Tag: "jobs", Summary: "Jobs changed since an event cursor, ascending by eventSeq",
			Query: JobsQuery{}, Out: []Out{{Status: 200, Body: JobsBody{}}}, Errors: []*errs.Error{job.ErrBadSince}, Handler: s.listJobs},
		{Method: "POST", Path: "/api/toolkit/jobs/{id}/cancel", Class: KeyOrSession, Tag: "jobs", Summary: "Cancel a queued job and release its hold",
			Out: []Out{{Status: 200, Body: job.CancelResult{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.cancelJob},
		{Method: "POST", Path: "/api/toolkit/jobs/{id}/duplicate", Class: KeyOrSession, Tag: "jobs", Summary: "Develop a job again with a fresh hold",
			In: DuplicateRequest{}, Out: []Out{{Status: 202, Body: Duplicated{}}},
			Errors: []*errs.Error{ledger.ErrInsufficientTokens, errs.Forbidden, errs.NotFound, job.ErrUnknownToolRun, job.ErrNoInputs, job.ErrKeyReused}, Handler: s.duplicateJob},
		{Method: "GET", Path: "/api/toolkit/develops", Class: KeyOrSession, Tag: "jobs", Summary: "Develop runs, newest first",
			Query: RunsQuery{}, Out: []Out{{Status: 200, Body: RunsBody{}}}, Errors: []*errs.Error{job.ErrBadState, job.ErrBadLimit}, Handler: s.listRuns},
		{Method: "POST", Path: "/api/toolkit/develops/{id}/cancel", Class: KeyOrSession, Tag: "jobs", Summary: "Cancel a run's queued frames",
			Out: []Out{{Status: 200, Body: job.RunCancel{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.cancelRun},
		// Lookbook, factory, presets (SPEC §4.6), postures (§4.15), backgrounds and templates (§4.19)
		{Method: "GET", Path: "/api/toolkit/lookbook/looks", Class: KeyOrSession, Tag: "lookbook", Summary: "The house's looks, newest first (50)",
			Out: []Out{{Status: 200, Body: LooksBody{}}}, Handler: s.listLooks},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks", Class: KeyOrSession, Tag: "lookbook", Summary: "Compose a draft look; nothing is developed or charged",
			In: look.CreateRequest{}, Out: []Out{{Status: 201, Body: LookBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrNameRequired, look.ErrModelRequired, look.ErrItemsRequired, look.ErrTooManyItems,
				look.ErrBadItem, look.ErrBadBackground, look.ErrBadAesthetic, look.ErrAssetNotFound}, Handler: s.createLook},
		{Method: "GET", Path: "/api/toolkit/lookbook/looks/{id}", Class: KeyOrSession, Tag: "lookbook", Summary: "A look with its variation frames and newest lock develop",
			Out: []Out{{Status: 200, Body: look.Detail{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/develop-lock", Class: KeyOrSession, Tag: "lookbook", Summary: "Develop a draft look's base frame; holds the tier's price plus any restoration pass",
			In: look.DevelopRequest{}, Out: []Out{{Status: 202, Body: look.Receipt{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadQuality, look.ErrUnknownDestination, look.ErrBadDimensions, look.ErrOutputTooLarge,
				look.ErrQualityTooLow, ledger.ErrInsufficientTokens, errs.NotFound, look.ErrDevelopInFlight, look.ErrLookLocked, job.ErrKeyReused}, Handler: s.developLock},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/lock", Class: KeyOrSession, Tag: "lookbook", Summary: "Lock a look on a frame one of its develops made",
			In: look.LockRequest{}, Out: []Out{{Status: 200, Body: LookBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrAssetRequired, errs.NotFound, look.ErrDevelopInFlight, look.ErrNotALookFrame}, Handler: s.lockLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/unlock", Class: KeyOrSession, Tag: "lookbook", Summary: "Return a look to draft; its look-base fields are kept",
			Out: []Out{{Status: 200, Body: LookBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound, look.ErrDevelopInFlight}, Handler: s.unlockLook},
		{Method: "POST", Path: "/api/toolkit/lookbook/looks/{id}/variations", Class: KeyOrSession, Tag: "lookbook", Summary: "Develop one variation frame per key from the look base; all frames held or none",
			In: look.VariationsRequest{}, Out: []Out{{Status: 202, Body: VariationsBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadQuality, look.ErrKeysRequired, look.ErrTooManyFrames, look.ErrUnknownVariant,
				look.ErrUnknownDestination, look.ErrBadDimensions, look.ErrOutputTooLarge, look.ErrQualityTooLow, ledger.ErrInsufficientTokens,
				errs.NotFound, look.ErrDevelopInFlight, look.ErrLockRequired, job.ErrKeyReused}, Handler: s.lookVariations},
		{Method: "POST", Path: "/api/toolkit/factory/plan", Class: KeyOrSession, Tag: "lookbook", Summary: "Propose looks from pieces with the standing preset, priced; reads only",
			In: look.PlanRequest{}, Out: []Out{{Status: 200, Body: look.Plan{}}},
			Errors: []*errs.Error{look.ErrAssetsRequired, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.factoryPlan},
		{Method: "POST", Path: "/api/toolkit/factory/run", Class: KeyOrSession, Tag: "lookbook", Summary: "Create a batch of draft looks; spends nothing, one bad look rejects all",
			In: look.RunRequest{}, Out: []Out{{Status: 201, Body: look.RunResult{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrLooksRequired, look.ErrTooManyLooks, look.ErrModelRequired, look.ErrBadAesthetic,
				look.ErrNameRequired, look.ErrItemsRequired, look.ErrTooManyItems, look.ErrBadItem, look.ErrBadBackground, look.ErrKeysRequired,
				look.ErrTooManyFrames, look.ErrUnknownVariant, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.factoryRun},
		{Method: "GET", Path: "/api/toolkit/presets", Class: KeyOrSession, Tag: "lookbook", Summary: "The standing preset; defaults when never saved",
			Out: []Out{{Status: 200, Body: PresetBody{}}}, Handler: s.getPreset},
		{Method: "POST", Path: "/api/toolkit/presets", Class: KeyOrSession, Tag: "lookbook", Summary: "Replace the standing preset",
			In: look.PresetRequest{}, Out: []Out{{Status: 200, Body: PresetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, look.ErrBadAesthetic, look.ErrBadBackground, look.ErrKeysRequired, look.ErrTooManyFrames,
				look.ErrUnknownVariant, look.ErrBadQuality, look.ErrAssetNotFound}, Handler: s.savePreset},
		{Method: "GET", Path: "/api/toolkit/postures", Class: KeyOrSession, Tag: "postures", Summary: "The posture library, axes, register constraints and the house's prefs",
			Out: []Out{{Status: 200, Body: look.PosturesView{}}}, Handler: s.listPostures},
		{Method: "PUT", Path: "/api/toolkit/postures/prefs", Class: KeyOrSession, Tag: "postures", Summary: "Merge posture prefs; ids that cannot be cast are dropped",
			In: look.PrefsPatch{}, Out: []Out{{Status: 200, Body: look.Prefs{}}},
			Errors: []*errs.Error{look.ErrCantEdit, look.ErrBadIDs, look.ErrBadCustom}, Handler: s.savePosturePrefs},
		{Method: "GET", Path: "/api/toolkit/backgrounds", Class: KeyOrSession, Tag: "lookbook", Summary: "What a look can stand on: background presets and the house's background assets",
			Out: []Out{{Status: 200, Body: look.BackgroundsView{}}}, Handler: s.listBackgrounds},
		{Method: "GET", Path: "/api/toolkit/lookbook/templates", Class: KeyOrSession, Tag: "lookbook", Summary: "The built-in shot templates",
			Out: []Out{{Status: 200, Body: TemplatesBody{}}}, Handler: s.listTemplates},
		{Method: "GET", Path: "/api/toolkit/lookbook/templates/{id}", Class: KeyOrSession, Tag: "lookbook", Summary: "One shot template",
			Out: []Out{{Status: 200, Body: TemplateBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getTemplate},
	}
}
