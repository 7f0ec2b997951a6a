// run_resume.c — checkpoints written every K frames and a run resumed from one (checkpoint.h).
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

// Simulated frame `frame`, once finished, is followed by a checkpoint
// (--checkpoint-every K: after frames K - 1, 2K - 1, ...; a resume starts
// at the frame after it; headless, where every frame simulates one).
// The run's last frame is followed by one too: a finished run can be
// extended (--resume with more --frames).
bool run_checkpoint_due(const run_state *r, uint32_t frame)
{
    uint32_t frames = r->opt->frames ? r->opt->frames : 120;
    return r->opt->checkpoint_every && ((frame + 1) % r->opt->checkpoint_every == 0 || frame + 1 == frames);
}

// After frame `frame` and everything before it finished (rows, dumps): the
// world's state into DIR/checkpoint_NNNNN.ckpt, NNNNN = frame + 1.
bool run_write_checkpoint(run_state *r, uint32_t frame, cs_error *err)
{
    uint64_t bytes;
    double start = cs_now_seconds();
    if (!cs_ckpt_write(&r->world, r->out_dir, frame + 1, r->scene_hash, r->last_checkpoint,
                       sizeof r->last_checkpoint, &bytes, err))
        return false;
    r->checkpoint_ms += 1e3 * (cs_now_seconds() - start);
    r->checkpoint_bytes = bytes;
    r->checkpoints_written++;
    return true;
}

// --resume without --out: the checkpoint's own folder.
void run_resume_default_out(const char *checkpoint, char *out, size_t size)
{
    const char *slash = strrchr(checkpoint, '/');
    if (!slash)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", (int)(slash - checkpoint), checkpoint);
}

// --resume: the run's folder as the killed run left it. stats.csv keeps
// its header and the rows of the frames the checkpoint holds, and goes on
// from there (cut by open_resumed_stats once the checkpoint has loaded);
// the numbered files of later frames are written again.
bool run_open_resumed_outputs(run_state *r, cs_error *err)
{
    // The checkpoint's header first: a refusal leaves stats.csv as it was.
    cs_ckpt_header h;
    if (!cs_ckpt_scene_hash(&r->scene, r->opt->particles, &r->scene_hash, err) ||
        !cs_ckpt_check(r->opt->resume, r->scene_hash, r->scene.name, &h, err))
        return false;
    struct stat st;
    if (stat(r->out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cs_fail(err, "--resume: %s is not the run's folder (it does not exist or is not a directory); "
                            "give --out the folder the checkpoint's run wrote into", r->out_dir);
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    long long keep;
    uint32_t rows;
    if (!cs_ckpt_stats_kept(path, h.frame, &keep, &rows, r->stat_passes, 64, &r->stat_pass_count, err))
        return false;
    if (rows != h.frame)
        return cs_fail(err, "--resume %s: %s holds %u rows before frame %u, where the checkpoint continues; "
                            "give --out the folder of the run that wrote the checkpoint", r->opt->resume, path, rows,
                       h.frame);
    r->resume_stats_keep = keep;
    r->stats_rows = rows;
    return true;
}

// After the checkpoint loaded (every value checked): stats.csv cut to the
// rows it keeps, and opened to go on.
static bool open_resumed_stats(run_state *r, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    r->stats_open = cs_out_open_table_append(&r->stats, path, r->resume_stats_keep, err);
    return r->stats_open;
}

// The ParaView collections of a resumed run list the files of the frames
// before the checkpoint too.
static bool resume_series(run_state *r, cs_error *err)
{
    for (uint32_t frame = 0; frame < r->first_frame; frame++) {
        for (uint32_t i = 0; i < r->world.fluid_count && r->opt->dump_vtu && run_dump_due(r, frame); i++) {
            const char *fluid = r->world.fluids[i].scene->fluid_name;
            char name[256], path[800];
            struct stat st;
            run_series_file(r, "particles", fluid, frame, "vtu", name, sizeof name, path, sizeof path);
            if (stat(path, &st) == 0 && !run_add_to_series(r, &r->particle_series[i], "particles", fluid, name, frame, err))
                return false;
        }
        for (uint32_t s = 0; s < r->world.surface_count && r->opt->mesh_format == CS_MESH_VTP && run_mesh_due(r, frame);
             s++) {
            uint32_t i = r->world.surfaces[s].fluid;
            const char *fluid = r->world.fluids[i].scene->fluid_name;
            char name[256], path[800];
            struct stat st;
            run_series_file(r, "mesh", fluid, frame, "vtp", name, sizeof name, path, sizeof path);
            if (stat(path, &st) == 0 && !run_add_to_series(r, &r->mesh_series[i], "mesh", fluid, name, frame, err))
                return false;
        }
    }
    return true;
}

// --checkpoint-every: the scene's hash, and every solver able to be saved;
// --resume: the world loaded from the checkpoint, the run's counters set
// to its frame.
bool run_start_from_checkpoint(run_state *r, cs_error *err)
{
    if (!cs_ckpt_scene_hash(&r->scene, r->opt->particles, &r->scene_hash, err))
        return false;
    if (!r->opt->resume)
        return true;
    char warning[1024];
    uint32_t frame;
    if (!cs_ckpt_load(&r->world, r->opt->resume, r->scene_hash, &frame, warning, sizeof warning, err) ||
        !open_resumed_stats(r, err))
        return false;
    if (warning[0])
        fprintf(stderr, "cistern: warning: %s\n", warning);
    r->first_frame = r->sim_frames = r->recorded_sim_frames = frame;
    // A frame that goes wrong is replayed from the scene's start (the world
    // is bit-deterministic, world_first_nan.c), not from the checkpoint.
    r->world_first_frame = 0;
    if (!r->opt->quiet)
        fprintf(stderr, "cistern: resuming %s at frame %u from %s\n", r->scene.name, frame, r->opt->resume);
    return resume_series(r, err);
}
