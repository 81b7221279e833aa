package operate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest"
)

// How often a command reads its jobs' states again.
const trackEvery = 250 * time.Millisecond

// folderFile is a file found under the folder to ingest.
type folderFile struct {
	path string // to open
	rel  string // to show: relative to the folder, with '/'
	size int64
}

// outcome is a file or document that did not make it, and why.
type outcome struct {
	name, why string
}

func (o outcome) String() string { return o.name + ": " + o.why }

// ingest implements `assistant ingest DIR --kb ID [--tenant T]`: every
// supported file under DIR goes through ingest.Service.Upload (what
// POST /admin/kb/documents calls), and the index jobs run on workers in
// this process as well as on any running server's.
func (c cli) ingest(ctx context.Context, args []string) int {
	const cmd = "ingest"
	fs := c.flagSet(cmd, "ingest DIR --kb ID [--tenant T]",
		"Uploads every supported file under DIR (recursively; .pdf, .docx, .xlsx, .txt, .md,\n"+
			".markdown, .csv, .html, .htm, .xhtml, .png, .jpg, .jpeg, .webp) into a knowledge\n"+
			"base, then waits until each is indexed, showing progress on stderr. Other files are\n"+
			"listed as skipped; hidden files and folders are left out. Exits 1 when any file failed.")
	kbID := fs.String("kb", "", "the knowledge base (kb_…) to upload into (required)")
	tenantFlag := fs.String("tenant", "", "the knowledge base's tenant; found from the knowledge base when left out")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	switch {
	case len(pos) != 1:
		return c.usageError(cmd, "want one folder, got %d arguments", len(pos))
	case *kbID == "":
		return c.usageError(cmd, "--kb is required")
	}
	tenant, err := parseTenant(*tenantFlag)
	if err != nil {
		return c.usageError(cmd, "%v", err)
	}
	if st, err := os.Stat(pos[0]); err != nil || !st.IsDir() {
		return c.usageError(cmd, "%s is not a readable folder", pos[0])
	}

	prog := newProgress(c.stderr, c.Getenv, cmd)
	a, err := c.OpenIndexing(ctx, prog)
	if err != nil {
		return c.fail(cmd, err)
	}
	defer a.Close()
	if tenant, err = knowledgeBaseTenant(ctx, a, tenant, *kbID); err != nil {
		return c.fail(cmd, err)
	}
	files, skipped, failed := collectFiles(pos[0], a.MaxUploadBytes)

	tracker := ingest.NewTracker(a.Store)
	names := make(map[string]string) // job id → file
	total, sent := len(files)+len(failed), 0
	show := func(t ingest.Tally) {
		prog.update(counts{Total: total, Sent: sent, Succeeded: t.Succeeded, Failed: t.Failed + len(failed)})
	}
	show(ingest.Tally{})
	lastRead := time.Now()
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		job, err := uploadFile(ctx, a.Ingest, tenant, *kbID, f)
		if err != nil && !refusal(err) {
			prog.done()
			return c.fail(cmd, fmt.Errorf("%s: %s (%d file(s) sent; their jobs go on)", f.rel, describe(err), sent))
		}
		if err != nil {
			failed = append(failed, outcome{f.rel, describe(err)})
		} else {
			tracker.Add(job)
			names[job.ID] = f.rel
			sent++
		}
		if time.Since(lastRead) >= 2*trackEvery {
			if err := tracker.Refresh(ctx); err != nil && ctx.Err() == nil {
				prog.done()
				return c.fail(cmd, err)
			}
			lastRead = time.Now()
		}
		show(tracker.Tally())
	}
	return c.finish(ctx, jobs{cmd: cmd, prog: prog, tracker: tracker, names: names}, show, failed, skipped,
		func(t ingest.Tally, failed int) string {
			return fmt.Sprintf("%s (tenant %s): %d file(s) indexed, %d failed, %d skipped\n", *kbID, tenant, t.Succeeded, failed, len(skipped))
		})
}

// uploadFile reads one file and hands it to the ingestion service.
func uploadFile(ctx context.Context, svc *ingest.Service, tenant domain.TenantID, kbID string, f folderFile) (domain.IndexJob, error) {
	content, err := os.ReadFile(f.path)
	if err != nil {
		return domain.IndexJob{}, domain.Errorf(domain.CodeValidation, "cannot be read: %v", errors.Unwrap(err))
	}
	_, job, _, err := svc.Upload(ctx, ingest.Upload{Tenant: tenant, KBID: kbID, FileName: filepath.Base(f.path), Content: content})
	return job, err
}

// refusal reports whether an upload error concerns the file alone (its
// content, its name, the tenant's required metadata), so the others may
// still go; anything else stops the command.
func refusal(err error) bool {
	switch domain.ErrorCodeOf(err) {
	case domain.CodeValidation, domain.CodeUnsupportedMediaType, domain.CodeMetadataInvalid, domain.CodePayloadTooLarge:
		return true
	}
	return false
}

// collectFiles walks dir for files to upload: those of a supported kind
// (by name; the upload checks the content) and no larger than maxBytes.
// Files of other kinds are skipped; unreadable or too large ones failed.
// Hidden files and folders are left out.
func collectFiles(dir string, maxBytes int64) (files []folderFile, skipped, failed []outcome) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil:
			failed = append(failed, outcome{rel, "cannot be read: " + describeFSError(err)})
			return nil
		case path != dir && strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return nil
		}
		st, err := os.Stat(path) // follows a symbolic link
		switch {
		case err != nil:
			failed = append(failed, outcome{rel, "cannot be read: " + describeFSError(err)})
		case !st.Mode().IsRegular():
			skipped = append(skipped, outcome{rel, "not a regular file"})
		case !ingest.SupportedFileName(d.Name()):
			skipped = append(skipped, outcome{rel, fmt.Sprintf("not a supported kind (%s)", kindOfName(d.Name()))})
		case st.Size() > maxBytes:
			failed = append(failed, outcome{rel, fmt.Sprintf("%d bytes, over ASSISTANT_MAX_UPLOAD_BYTES (%d)", st.Size(), maxBytes)})
		default:
			files = append(files, folderFile{path: path, rel: rel, size: st.Size()})
		}
		return nil
	})
	return files, skipped, failed
}

func describeFSError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func kindOfName(name string) string {
	if ext := filepath.Ext(name); ext != "" {
		return ext
	}
	return "no extension"
}

// jobError is a failed job's reason for a person.
func jobError(j domain.IndexJob) string {
	detail, reason := "the job failed", "unknown"
	if j.Detail != nil {
		detail = *j.Detail
	}
	if j.Reason != nil {
		reason = *j.Reason
	}
	return fmt.Sprintf("%s (%s, job %s)", strings.TrimSuffix(detail, "."), reason, j.ID)
}

// printOutcomes lists files or documents under a heading, if any.
func (c cli) printOutcomes(heading string, list []outcome) {
	if len(list) == 0 {
		return
	}
	lines := make([]string, len(list))
	for i, o := range list {
		lines[i] = o.String()
	}
	fmt.Fprintf(c.stdout, "%s:\n%s", heading, joinLines(lines))
}

// jobs is a command's index jobs as they run: the tracker following them,
// each job's item (file or document) by job id, and the progress display.
type jobs struct {
	cmd     string
	prog    *progress
	tracker *ingest.Tracker
	names   map[string]string
}

// finish waits until every tracked job has finished, showing each change
// with show, then reports: the summary line (given the last tally and how
// many items failed, those in failed and the failed jobs), the skipped
// and the failed items. Returns ExitFail when any item failed or the wait
// was cut short.
func (c cli) finish(ctx context.Context, j jobs, show func(ingest.Tally), failed, skipped []outcome, summary func(t ingest.Tally, failed int) string) int {
	waitErr := j.tracker.Wait(ctx, trackEvery, show)
	j.prog.done()

	for _, job := range j.tracker.Failed() {
		failed = append(failed, outcome{j.names[job.ID], jobError(job)})
	}
	t := j.tracker.Tally()
	fmt.Fprint(c.stdout, summary(t, len(failed)))
	c.printOutcomes("skipped", skipped)
	c.printOutcomes("failed", failed)
	if waitErr != nil {
		return c.interrupted(j.cmd, waitErr, t.Remaining)
	}
	if len(failed) > 0 {
		return exitFail
	}
	return exitOK
}

// interrupted reports a command stopped before its jobs finished.
func (c cli) interrupted(cmd string, err error, remaining int) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(c.stderr, "assistant %s: interrupted; %d job(s) not finished stay queued and finish on any server's workers (or the next run's)\n", cmd, remaining)
		return exitFail
	}
	return c.fail(cmd, err)
}

// knowledgeBaseTenant checks that knowledge base kbID exists in tenant and
// that the tenant is active; with no tenant named, it finds the active
// tenant that has it. Returns CodeNotFound when none has it.
func knowledgeBaseTenant(ctx context.Context, a *Core, tenant domain.TenantID, kbID string) (domain.TenantID, error) {
	if tenant != "" {
		if err := activeTenant(ctx, a, tenant); err != nil {
			return "", err
		}
		_, err := a.Store.GetKnowledgeBase(ctx, tenant, kbID)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			return "", fmt.Errorf("--kb %s: tenant %s has no such knowledge base", kbID, tenant)
		}
		if err != nil {
			return "", err
		}
		return tenant, nil
	}
	// Knowledge bases are only ever read within their tenant; the operator
	// may look in each.
	var found domain.TenantID
	err := eachActiveTenant(ctx, a, func(t domain.TenantID) (bool, error) {
		_, err := a.Store.GetKnowledgeBase(ctx, t, kbID)
		switch {
		case err == nil:
			found = t
			return false, nil
		case domain.ErrorCodeOf(err) == domain.CodeNotFound:
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("--kb %s: no active tenant has this knowledge base", kbID)
	}
	return found, nil
}

// activeTenant checks that tenant exists and is active; unlike the API's
// tenant header it never creates one, so a mistyped name is an error.
func activeTenant(ctx context.Context, a *Core, tenant domain.TenantID) error {
	t, err := a.Tenants.Get(ctx, operator(), tenant)
	switch {
	case domain.ErrorCodeOf(err) == domain.CodeNotFound:
		return fmt.Errorf("--tenant %s: no such tenant", tenant)
	case err != nil:
		return err
	case t.Status != domain.TenantActive:
		return fmt.Errorf("--tenant %s: the tenant is %s", tenant, t.Status)
	}
	return nil
}

// eachActiveTenant calls fn with every active tenant, in id order, while
// fn returns true.
func eachActiveTenant(ctx context.Context, a *Core, fn func(domain.TenantID) (bool, error)) error {
	active := domain.TenantActive
	page := domain.PageRequest{Limit: domain.MaxPageSize}
	for {
		res, err := a.Tenants.List(ctx, operator(), domain.TenantFilter{Status: &active}, page)
		if err != nil {
			return err
		}
		for _, t := range res.Items {
			more, err := fn(t.ID)
			if err != nil || !more {
				return err
			}
		}
		next, ok := res.NextPage(page.Limit)
		if !ok {
			return nil
		}
		page = next
	}
}
