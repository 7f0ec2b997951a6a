// run_outputs.c — the run's files: stats.csv rows, particle dumps, surface meshes, PNG frames and their ParaView series.
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

// The simulated seconds at the end of frame `frame` since the current world
// started (stats.csv's time_s: a restart starts it again at 0, the restart
// column counts the worlds).
static double world_time(const run_state *r, uint32_t frame)
{
    return (double)(frame - r->world_first_frame + 1) * r->world_frame_seconds;
}

// The same in the run's time, which goes on across restarts (a dump of the
// frame holds the particles of that moment; ParaView's series want times
// that only increase).
static double frame_time(const run_state *r, uint32_t frame)
{
    return r->world_start_time + world_time(r, frame);
}

bool run_open_stats(run_state *r, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    // A table: the rows written so far stay readable when a run stops, and
    // stay when a write fails (a link there is refused, not written through).
    r->stats_open = cs_out_open_table(&r->stats, path, err);
    return r->stats_open;
}

// The header is written after the first frame, when the pass names are known.
// Each row is flushed, so a full disk stops the run at the frame it happens.
bool run_write_stats_row(run_state *r, const cs_recorder *rec, const cs_sim_stats *s, cs_error *err)
{
    cs_out_file *out = &r->stats;
    if (r->stat_pass_count == 0) {
        for (uint32_t i = 0; i < rec->pass_count && r->stat_pass_count < 64; i++) {
            bool seen = false;
            for (uint32_t j = 0; j < r->stat_pass_count; j++)
                seen |= strcmp(r->stat_passes[j], rec->passes[i].name) == 0;
            if (!seen)
                memcpy(r->stat_passes[r->stat_pass_count++], rec->passes[i].name, 48);
        }
        cs_out_printf(out, "frame,time_s,particles,mean_density_error,max_density_error,max_speed,kinetic_energy,"
                          "total_mass,non_finite,outside_domain,gpu_total_ms,submit_wall_ms,restart,solver_steps,"
                          "density_iterations,divergence_iterations,solver_mean_dt");
        for (uint32_t j = 0; j < r->stat_pass_count; j++)
            cs_out_printf(out, ",gpu_ms:%s", r->stat_passes[j]);
        cs_out_printf(out, "\n");
    }
    uint32_t frame = r->sim_frames;
    double t = world_time(r, frame);
    cs_out_printf(out, "%u,%.6f,%u,%.6g,%.6g,%.6g,%.6g,%.9g,%u,%u,%.4f,%.4f,%u", frame, t, s->particles,
            s->mean_density_error, s->max_density_error, s->max_speed, s->kinetic_energy, s->total_mass,
            s->non_finite, s->outside_domain, cs_recorder_total_ms(rec), rec->submit_wall_ms, r->restarts);
    // DFSPH's own steps and solver iterations (sim.h); empty for solvers without.
    if (s->solver_steps)
        cs_out_printf(out, ",%u,%u,%u,%.6g", s->solver_steps, s->density_iterations, s->divergence_iterations,
                      s->solver_dt_sum / s->solver_steps);
    else
        cs_out_printf(out, ",,,,");
    // A pass that did not run in this frame (a solver's split, a surface
    // not meshed, another world's passes after a reload) is empty, not 0.
    for (uint32_t j = 0; j < r->stat_pass_count; j++) {
        double ms = cs_recorder_pass_ms(rec, r->stat_passes[j]);
        if (ms >= 0.0)
            cs_out_printf(out, ",%.4f", ms);
        else
            cs_out_printf(out, ",");
    }
    cs_out_printf(out, "\n");
    if (!cs_out_flush(out, err))
        return false;
    r->stats_rows++;
    return true;
}

// A numbered file of series `series` ("particles", "mesh"): SERIES_NNNNN.EXT
// for a world of one fluid, SERIES_<fluid>_NNNNN.EXT when there are several;
// the series' .pvd is named the same way without the number. `name` gets
// the file name, `path` the path in the output folder.
void run_series_file(const run_state *r, const char *series, const char *fluid, uint32_t frame,
                        const char *ext, char *name, size_t name_size, char *path, size_t path_size)
{
    if (r->world.fluid_count == 1)
        snprintf(name, name_size, "%s_%05u.%s", series, frame, ext);
    else
        snprintf(name, name_size, "%s_%s_%05u.%s", series, fluid, frame, ext);
    snprintf(path, path_size, "%s/%s", r->out_dir, name);
}

// Lists a file just written whole in its series' .pvd, rewritten at once so
// that a run stopped later leaves a collection of every file written.
bool run_add_to_series(run_state *r, cs_pvd *pvd, const char *series, const char *fluid, const char *name,
                          uint32_t frame, cs_error *err)
{
    char path[700];
    if (r->world.fluid_count == 1)
        snprintf(path, sizeof path, "%s/%s.pvd", r->out_dir, series);
    else
        snprintf(path, sizeof path, "%s/%s_%s.pvd", r->out_dir, series, fluid);
    return cs_pvd_add(pvd, path, name, frame_time(r, frame), err);
}

// One dump per fluid that has particles: particles_NNNNN.ply for a world of
// one fluid, particles_<fluid>_NNNNN.ply when there are several (.vtu with
// --dump-format vtu, each listed in particles[_<fluid>].pvd).
bool run_dump_particles(run_state *r, cs_world *world, uint32_t frame, cs_error *err)
{
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        if (!f->ops->particles)
            continue;
        cs_particle_view v;
        f->ops->particles(f->state, &v);
        size_t n = v.count;
        float *pos = malloc(n * 16 + 16), *vel = malloc(n * 16 + 16), *den = malloc(n * 4 + 4);
        uint32_t *mat = malloc(n * 4 + 4);
        if (!pos || !vel || !den || !mat) {
            free(pos), free(vel), free(den), free(mat);
            return cs_fail(err, "out of host memory for a PLY dump of %zu particles", n);
        }
        cs_buffer_download(&r->ctx, v.positions, pos, n * 16, 0);
        cs_buffer_download(&r->ctx, v.velocities, vel, n * 16, 0);
        cs_buffer_download(&r->ctx, v.densities, den, n * 4, 0);
        cs_buffer_download(&r->ctx, v.materials, mat, n * 4, 0);
        const char *fluid = f->scene->fluid_name;
        char name[200], path[700], comment[160];
        run_series_file(r, "particles", fluid, frame, r->opt->dump_vtu ? "vtu" : "ply", name, sizeof name, path,
                    sizeof path); // r->world and a replay of it have the same fluids
        if (world->fluid_count == 1)
            snprintf(comment, sizeof comment, "cistern scene %s frame %u", r->scene.name, frame);
        else
            snprintf(comment, sizeof comment, "cistern scene %s fluid %s frame %u", r->scene.name, fluid, frame);
        bool ok = r->opt->dump_vtu ? cs_vtu_write(path, frame_time(r, frame), pos, vel, den, mat, v.count, err)
                                   : cs_ply_write(path, comment, pos, vel, den, mat, v.count, err);
        free(pos), free(vel), free(den), free(mat);
        if (!ok)
            return false;
        r->dumps_written++;
        if (r->opt->dump_vtu && !run_add_to_series(r, &r->particle_series[i], "particles", fluid, name, frame, err))
            return false;
    }
    return true;
}

// The extension of --mesh-format's files.
const char *run_mesh_ext(const run_state *r)
{
    return r->opt->mesh_format == CS_MESH_OBJ ? "obj" : r->opt->mesh_format == CS_MESH_VTP ? "vtp" : "ply";
}

// One mesh file per surface: mesh_NNNNN.ply for a world of one fluid,
// mesh_<fluid>_NNNNN.ply when there are several (.obj with --mesh-format obj;
// .vtp with --mesh-format vtp, each listed in mesh[_<fluid>].pvd).
bool run_write_meshes(run_state *r, uint32_t frame, cs_error *err)
{
    for (uint32_t i = 0; i < r->world.surface_count; i++) {
        const cs_world_surface *s = &r->world.surfaces[i];
        const cs_scene *fs = r->world.fluids[s->fluid].scene;
        uint32_t nv = s->drawable ? s->mesh.vertex_count : 0, nt = s->drawable ? s->mesh.triangle_count : 0;
        float *pos = malloc((size_t)nv * 12 + 12), *nrm = malloc((size_t)nv * 12 + 12);
        uint32_t *idx = malloc((size_t)nt * 12 + 12);
        if (!pos || !nrm || !idx) {
            free(pos), free(nrm), free(idx);
            return cs_fail(err, "out of host memory for a mesh of %u vertices and %u triangles", nv, nt);
        }
        if (s->drawable)
            cs_surface_download(&r->ctx, &s->mesh, pos, nrm, idx);
        cs_mesh_format format = (cs_mesh_format)r->opt->mesh_format;
        char name[200], path[700], comment[200];
        run_series_file(r, "mesh", fs->fluid_name, frame, run_mesh_ext(r), name, sizeof name, path, sizeof path);
        snprintf(comment, sizeof comment, "cistern scene %s fluid %s frame %u surface (iso %g)", r->scene.name,
                 fs->fluid_name, frame, (double)s->params.iso);
        bool ok = format == CS_MESH_OBJ   ? cs_surface_write_obj(path, comment, pos, nrm, nv, idx, nt, err)
                  : format == CS_MESH_VTP ? cs_vtp_write(path, frame_time(r, frame), pos, nrm, nv, idx, nt, err)
                                          : cs_surface_write_ply(path, pos, nrm, nv, idx, nt, err);
        free(pos), free(nrm), free(idx);
        if (!ok)
            return false;
        r->meshes_written++;
        if (format == CS_MESH_VTP &&
            !run_add_to_series(r, &r->mesh_series[s->fluid], "mesh", fs->fluid_name, name, frame, err))
            return false;
    }
    return true;
}

// Simulated frame `frame` writes its meshes (--mesh-every).
bool run_mesh_due(const run_state *r, uint32_t frame)
{
    return r->opt->mesh_every && r->world.surface_count && frame % r->opt->mesh_every == 0;
}

// Simulated frame `frame` writes a PLY dump (--dump-every).
bool run_dump_due(const run_state *r, uint32_t frame)
{
    return r->opt->dump_every && frame % r->opt->dump_every == 0;
}

bool run_write_image(run_state *r, uint32_t frame, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/frame_%05u.png", r->out_dir, frame);
    if (!cs_write_png(path, r->renderer.width, r->renderer.height, cs_render_pixels(&r->renderer), err))
        return false;
    r->images_written++;
    return true;
}
